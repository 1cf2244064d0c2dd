/**
 * The activity list phrased per language from list_activity's structured entries (h13fix; until
 * then the English summary was rewritten with regular expressions and a line of another shape, or
 * a status the table lacked such as a transfer's `submitted`, stayed English).
 */
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../src/agent/local/language.js';
import { readReply } from '../../src/agent/local/replies-read.js';
import { ACTIVITY_STATUS, activityText, shownAmount, type ActivityEntry } from '../../src/agent/local/activity-i18n.js';

const entry = (e: Omit<ActivityEntry, 'id' | 'text'>): ActivityEntry => ({ id: `x_${e.at}`, text: '', ...e });
/** Every kind of entry the list holds, each with another status. */
const ENTRIES: ActivityEntry[] = [
  entry({ kind: 'transfer', direction: 'out', at: '2026-11-28T10:00:00Z', status: 'settled', amount: '5000.00', currency: 'NGN', counterparty: '@tunde' }),
  entry({ kind: 'transfer', direction: 'out', at: '2026-11-27T10:00:00Z', status: 'submitted', amount: '1234567.89', currency: 'KES', counterparty: '+254•••5678' }),
  entry({ kind: 'transfer', direction: 'out', at: '2026-11-26T10:00:00Z', status: 'claimed', amount: '2000.00', currency: 'NGN', counterparty: '+234•••1234', claim_link: true }),
  entry({ kind: 'transfer', direction: 'in', at: '2026-11-25T10:00:00Z', status: 'settled', amount: '129.25', currency: 'KES' }),
  entry({ kind: 'transfer', direction: 'in', at: '2026-11-24T10:00:00Z', status: 'claimed', amount: '10.123456', currency: 'USDC', counterparty: 'Ana', claim_link: true }),
  entry({ kind: 'bill', direction: 'out', at: '2026-11-23T10:00:00Z', status: 'completed', amount: '3000.00', currency: 'NGN', counterparty: 'Ikeja Electric', reference: '45012345678' }),
  entry({ kind: 'bill', direction: 'out', at: '2026-11-22T10:00:00Z', status: 'refunded', amount: '100', currency: 'UGX', counterparty: 'UMEME', reference: '0712345678' }),
  entry({ kind: 'stake', direction: 'out', at: '2026-11-21T10:00:00Z', status: 'failed', amount: '1000.00', currency: 'NGN', reference: 'Yes' }),
  entry({ kind: 'payment', direction: 'in', at: '2026-11-20T10:00:00Z', status: 'settled', amount: '20', currency: 'USD', reference: 'shoes' }),
  entry({ kind: 'payment', direction: 'in', at: '2026-11-19T10:00:00Z', status: 'pending', amount: '12.5', currency: 'EUR' }),
];
const EN = activityText(ENTRIES, 'en');
/** Words of the English lines that no other language's line may keep. */
const ENGLISH = /\b(Sent|Received|Paid|Staked|Payment link|by claim link|recent activity|no activity)\b/;

describe('the activity list per language, from its entries', () => {
  it('English: the same lines as before the entries were structured', () => {
    expect(EN.split('\n')).toEqual([
      'Your recent activity:',
      '• 2026-11-28 Sent 5,000.00 NGN to @tunde — settled',
      '• 2026-11-27 Sent 1,234,567.89 KES to +254•••5678 — in progress',
      '• 2026-11-26 Sent 2,000.00 NGN to +234•••1234 by claim link — claimed',
      '• 2026-11-25 Received 129.25 KES — settled',
      '• 2026-11-24 Received 10.123456 USDC from Ana (claim link) — claimed',
      '• 2026-11-23 Paid 3,000.00 NGN to Ikeja Electric (45012345678) — completed',
      '• 2026-11-22 Paid 100 UGX to UMEME (0712345678) — refunded',
      '• 2026-11-21 Staked 1,000.00 NGN on "Yes" — failed',
      '• 2026-11-20 Payment link 20 USD (shoes) — settled',
      '• 2026-11-19 Payment link 12.5 EUR — pending',
    ]);
  });

  for (const lang of LANGS.filter((l) => l !== 'en')) {
    it(`${lang}: every kind of entry, no English left, amounts, names, references and dates exact`, () => {
      const reply = readReply('list_activity', EN, lang, { entries: ENTRIES, count: ENTRIES.length })!;
      expect(reply, lang).toBeDefined();
      const [head, ...lines] = reply.split('\n');
      const [enHead, ...enLines] = EN.split('\n');
      expect(head).not.toBe(enHead);
      expect(lines).toHaveLength(ENTRIES.length);
      ENTRIES.forEach((e, i) => {
        const line = lines[i]!;
        expect(line, lang).not.toBe(enLines[i]);
        expect(line, lang).not.toMatch(ENGLISH);
        expect(line.startsWith(`• ${e.at.slice(0, 10)} `), line).toBe(true);
        expect(line, line).toContain(shownAmount(e));
        for (const v of [e.counterparty, e.reference]) if (v) expect(line, line).toContain(v);
        // The status, in the language's own words.
        const status = line.split(' — ').at(-1)!;
        expect(status, line).toBe(ACTIVITY_STATUS[e.status]![lang]);
      });
    });
  }

  it('every status a listed module gives (transfers, claim links, bills, stakes, payments) has its own words in each language', () => {
    const statuses = ['quoted', 'submitted', 'settled', 'failed', 'expired', 'funding', 'open', 'claiming', 'claimed', 'returning', 'canceled', 'paid', 'completed', 'refunding', 'refunded', 'pending', 'processing', 'authorized', 'captured', 'voided'];
    for (const s of statuses) {
      const t = ACTIVITY_STATUS[s];
      expect(t, s).toBeDefined();
      for (const lang of LANGS.filter((l) => l !== 'en')) expect(t![lang], `${s} ${lang}`).not.toMatch(new RegExp(`\\b${t!.en}\\b`, 'i'));
    }
  });

  it('amounts come out exact: grouped, every decimal kept, never rounded', () => {
    expect(shownAmount({ amount: '1234567.891234', currency: 'USDC' })).toBe('1,234,567.891234 USDC');
    expect(shownAmount({ amount: '1500', currency: 'JPY' })).toBe('1,500 JPY');
    expect(readReply('list_activity', EN, 'sw', { entries: [], count: 0 })).toBe('Bado huna shughuli yoyote.');
  });

  it('a result without entries (another shape) keeps the tool\'s own summary', () => {
    expect(readReply('list_activity', EN, 'fr', { rows: [] })).toBeUndefined();
  });
});
