import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../src/agent/local/index.js';
import { localizeQuestion } from '../../src/agent/local/replies-questions-i18n.js';
import { ACCOUNT_LABELS, accountLabel } from '../../src/agent/local/account-labels-i18n.js';
import { replies } from '../../src/agent/local/replies.js';
import { CORRIDOR_LANGUAGES } from '../../src/lib/languages.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';
import type { Lang } from '../../src/agent/local/language.js';

/**
 * Issue 20, rule 5: the bill question "What's the {label} for {biller}?" is whole in the
 * person's language, its field label (meter number, smartcard number…) included.
 */

const catalogue = loadBillerCatalogue();
const billers = billerAliasIndex(catalogue);
const OTHERS = CORRIDOR_LANGUAGES.filter((l) => l !== 'en') as Exclude<Lang, 'en'>[];

describe('bill account labels in the eight languages', () => {
  it('every label of the catalogue has a row in every language', () => {
    const labels = new Set(catalogue.billers.map((b) => b.account.label.toLowerCase()));
    for (const label of labels) {
      const row = ACCOUNT_LABELS[label];
      expect(row, label).toBeDefined();
      for (const lang of OTHERS) expect(row![lang], `${label} ${lang}`).toBeTruthy();
    }
  });

  it('the question carries the translated label (fr, pt, es, sw, tl), English stays English', () => {
    const q = replies.billNeedsAccount('KPLC Prepaid', 'meter number');
    expect(localizeQuestion(q, 'en')).toBe("What's the meter number for KPLC Prepaid?");
    expect(localizeQuestion(q, 'sw')).toBe('Namba ya mita ya KPLC Prepaid ni ipi?');
    expect(localizeQuestion(q, 'fr')).toBe('Quel est le numéro de compteur pour KPLC Prepaid ?');
    expect(localizeQuestion(q, 'pt')).toBe('Qual é o número do medidor para KPLC Prepaid?');
    expect(localizeQuestion(q, 'es')).toBe('¿Cuál es el número de medidor para KPLC Prepaid?');
    expect(localizeQuestion(q, 'tl')).toBe('Ano ang numero ng metro para sa KPLC Prepaid?');
    for (const lang of ['sw', 'fr', 'pt', 'es', 'tl'] as const) {
      expect(localizeQuestion(replies.billNeedsAccount('DStv', 'smartcard number'), lang)).not.toMatch(/smartcard number/);
    }
  });

  it('through the parser: a Swahili bill without its meter number is asked whole in Swahili', () => {
    const r = parseMessage('lipa KPLC tokens 1000', { now: new Date('2026-03-11T10:00:00Z'), localCurrency: 'KES', billers });
    expect(r.kind).toBe('none');
    expect(r.kind === 'none' && r.reply).toBe('Namba ya mita ya KPLC Prepaid ni ipi?');
  });

  it('a label the table lacks stays as written', () => {
    expect(accountLabel('Policy number', 'fr')).toBe('Policy number');
  });
});
