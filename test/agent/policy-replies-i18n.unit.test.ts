import { describe, expect, it } from 'vitest';
import { checkRolling, checkStatic, overThreshold, type ScopedPolicy } from '../../src/policies/rules.js';
import type { Spend } from '../../src/policies/valuation.js';
import type { SpendReservation } from '../../src/policies/tables.js';
import { policyReply } from '../../src/agent/local/policy-replies-i18n.js';
import { CORRIDOR_LANGUAGES } from '../../src/lib/languages.js';
import { AMBIGUOUS, INFERRED } from '../../src/agent/grounding/grounding-reasons.js';
import { groundingNote } from '../../src/agent/local/grounding-notes-i18n.js';

/**
 * Issue 20, rule 5: every sentence a spend policy speaks (src/policies/rules.ts, guard.ts) is
 * said whole in each of the seven other languages, keeping the rule's own figures and naming
 * what to do. The English sentences are produced by the rules themselves, so a reworded rule
 * fails here instead of falling back to English.
 */

const now = new Date('2026-03-11T10:00:00Z');
const spend: Spend = { action: 'transfer', recipient: '@priya', amount: { currency: 'KES', minor: 50_000n, decimals: 2, usdMicro: 3_870_000n } };
const account = (policy: ScopedPolicy['policy']): ScopedPolicy[] => [{ scope: 'account', policy }];
const key = (policy: ScopedPolicy['policy']): ScopedPolicy[] => [{ scope: 'key', keyId: 'key_1', policy }];
const used: SpendReservation[] = [{ id: 'r1', accountId: 'a', action: 'transfer', usd: '5000000', currency: 'KES', minor: '60000', status: 'committed', createdAt: '2026-03-11T09:00:00Z', updatedAt: '2026-03-11T09:00:00Z' }];

const sentences: [string, string, string[]][] = [
  ['action not allowed (key)', checkStatic({ ...spend, action: 'bill' }, key({ allowed_actions: ['transfer'] }), [])!.message, []],
  ['blocked recipient', checkStatic(spend, account({ block_recipients: ['@priya'] }), ['@priya'])!.message, ['@priya']],
  ['not on the allowlist', checkStatic(spend, account({ allow_recipients: ['@amina'] }), ['@priya'])!.message, ['@priya']],
  ['per-transaction cap', checkStatic(spend, account({ usd: { per_transaction: '1' } }), [])!.message, ['1.00 USD']],
  ['daily cap', checkRolling(spend, account({ usd: { daily: '6' } }), used, now)!.message, ['6.00 USD', '1.00 USD']],
  ['weekly currency cap', checkRolling(spend, key({ currencies: { KES: { weekly: '700' } } }), [{ ...used[0]!, keyId: 'key_1' }], now)!.message, ['700.00 KES', '100.00 KES']],
  ['approval threshold', overThreshold(spend, account({ approval_threshold_usd: '2' }))!.message, ['2.00 USD']],
  [
    'paused (circuit breaker)',
    'Paused: this API key had too many refused or failed payments in a short time, so it cannot move money for 42 more seconds. Nothing was done. Check what your integration is retrying; the account holder can still act in the app.',
    ['42'],
  ],
];

describe('spend policy sentences in the eight languages', () => {
  for (const [what, english, figures] of sentences) {
    it(`${what}: "${english.slice(0, 60)}…" is said in every language with its figures`, () => {
      expect(policyReply(english, 'en')).toBeUndefined();
      for (const lang of CORRIDOR_LANGUAGES.filter((l) => l !== 'en')) {
        const said = policyReply(english, lang);
        expect(said, `${what} ${lang}`).toBeTruthy();
        for (const f of figures) expect(said, `${what} ${lang}`).toContain(f);
        expect(said).not.toMatch(/\b(Not done|Not sent|You can change|is over|would go over|spend policy's)\b/);
      }
    });
  }
  it('the rule names whose policy applied and what to do (the Developers screen) in every refusal', () => {
    const fr = policyReply(sentences[3]![1], 'fr')!;
    expect(fr).toBe("Non effectué : 3.87 USD dépasse la limite de 1.00 USD par transaction de votre politique de dépenses. Essayez un montant plus petit. Vous pouvez modifier la politique dans l'écran Développeurs de l'application (connecté, avec votre mot de passe).");
    expect(policyReply(sentences[0]![1], 'sw')).toMatch(/^Haikufanyika: sera ya matumizi ya ufunguo huu wa API hairuhusu kulipa bili\./);
  });
});

describe("grounding's notes before a held action in the eight languages", () => {
  it('every inference and ambiguity note, alone and joined, is said in every language; English is kept', () => {
    const all = [...Object.values(INFERRED), ...Object.values(AMBIGUOUS)];
    for (const lang of CORRIDOR_LANGUAGES.filter((l) => l !== 'en')) {
      for (const en of all) {
        const said = groundingNote(en, lang);
        expect(said, `${lang}: ${en}`).toBeTruthy();
        expect(said).not.toBe(en);
      }
      expect(groundingNote(`${INFERRED.network_from_phone} ${AMBIGUOUS.several_amounts}`, lang)!.split(/(?<=[.!?]) /).length).toBeGreaterThanOrEqual(2);
    }
    expect(groundingNote(INFERRED.network_from_phone, 'en')).toBeUndefined();
    expect(groundingNote('Something else entirely.', 'sw')).toBeUndefined();
  });
});
