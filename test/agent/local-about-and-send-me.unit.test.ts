import { describe, expect, it } from 'vitest';
import { atOnce, parse, reason } from './local-parse-helpers.js';

/**
 * Lead, fifteenth round, from a probe of phrasings no eval set holds: "about 5k" acted at once
 * for exactly 5,000 (the connector "about" placed before the amount), and Swahili "nitumie 500
 * @musa" ("send ME 500") sent 500 to Musa.
 */
describe('"about" right before the amount is an estimate, not an amount', () => {
  it('holds instead of acting for the round figure', () => {
    for (const text of ['send about 5k to @amaka', 'pls transfer about 20,000 naira to @chidi', 'send @amaka about ₦5,000']) expect(atOnce(parse('NGN', text)), text).toBeUndefined();
  });
  it('exact amounts still act', () => {
    expect(atOnce(parse('NGN', 'send 5k to @amaka'))).toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
    expect(atOnce(parse('NGN', 'send 5k to @amaka about the rent'))).toBeUndefined(); // "rent" unplaced, as before
  });
});

describe('Swahili send verbs whose object is the writer ("nitumie": send me)', () => {
  it('are money asked for, never a send to the person named', () => {
    for (const text of ['nitumie 500 @musa_kip', '@musa_kip nitumie elfu moja', 'nitumie 500 kwa @musa_kip', 'unitumie 200 @zawadi tafadhali', 'nisendie 300 @musa_kip']) {
      expect(atOnce(parse('KES', text)), text).toBeUndefined();
      // Answered, nothing done: as money coming to the writer (or, where the gate reads it first, a statement).
      expect(['reversed_direction', 'statement'], text).toContain(reason('KES', text));
    }
  });
  it('"mtumie" (send him/her), "tuma … kwa" still act', () => {
    expect(atOnce(parse('KES', 'mtumie @musa_kip elfu tatu'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@musa_kip', amount: '3000' } });
    expect(atOnce(parse('KES', 'tuma 500 kwa @musa_kip'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@musa_kip', amount: '500' } });
  });
});
