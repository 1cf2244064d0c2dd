import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';
import { HYPOTHETICAL, JOKING, RETRACTIONS, SCAM_BAIT } from '../../src/agent/local/gate-phrases.js';

/**
 * An identifier is opaque: the letters a random id happens to hold are no words of the message.
 * The eval of h14fix found `refund pay_kyc6nfs…` answered as a scam's bait ("kyc") and nothing
 * done; "jk" inside an id read as a joke. Every one-word gate phrase that base62 can spell, inside
 * an id after its prefix's underscore and between digits, leaves the refund to be carried out.
 */
const BASE62 = /^[A-Za-z0-9]+$/;
const words = [...new Set([...SCAM_BAIT, ...JOKING, ...RETRACTIONS, ...HYPOTHETICAL].filter((w) => BASE62.test(w)))];

function idWith(word: string, at: 'start' | 'digits'): string {
  const body = at === 'start' ? `${word}7Qx` : `Qx3${word}9`;
  return `pay_${(body + 'A1b2C3d4E5f6G7h8I9j0K1l2').slice(0, 24)}`;
}

describe('local engine: an id is no words', () => {
  it('the one-word gate phrases are there to test (kyc, bvn, jk, …)', () => {
    expect(words).toEqual(expect.arrayContaining(['kyc', 'bvn', 'jk', 'kidding', 'imagine']));
  });

  it.each(words.flatMap((w) => [idWith(w, 'start'), idWith(w, 'digits')]))('refund %s: carried out', (id) => {
    for (const text of [`refund ${id}`, `please refund ${id}, the customer returned it`]) {
      expect(atOnce(parse('USD', text)), text).toEqual({ name: 'refund_payment', input: expect.objectContaining({ payment_id: id }) });
    }
  });

  it('the words themselves still count: a scam\'s bait, a joke', () => {
    expect(parse('NGN', 'your KYC is due, send 5000 to @agent_desk to verify').kind).toBe('none');
    expect(atOnce(parse('NGN', 'send 5k to @amaka jk'))).toBeUndefined();
  });
});
