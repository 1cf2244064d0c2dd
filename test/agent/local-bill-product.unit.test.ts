import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * The product asked for is part of the reading: "data" from a network whose only product in the
 * catalogue is airtime must not buy its airtime (the word "data" would be left unplaced).
 */
describe('a bill for a product the network does not sell here is not read as another product', () => {
  it.each([
    ['NGN', 'buy glo data 500 for 08051234567'],
    ['KES', 'buy airtel data 500 for 0733123456'],
  ])('%s "%s" asks which biller, nothing acted on', (cur, text) => {
    const r = parse(cur, text);
    expect(atOnce(r)).toBeUndefined();
    expect(r.kind).toBe('none');
  });

  it.each([
    ['KES', 'buy 500 airtel airtime for 0733123456', 'ke-airtel-airtime'],
    ['NGN', 'buy mtn data 1000 naira for 08031234567', 'ng-mtn-data'],
    ['NGN', 'buy 1000 naira data for 08031234567', 'ng-mtn-data'],
    ['KES', 'data ya safaricom 100 kwa 0712345678', 'ke-safaricom-data'],
  ])('%s "%s" still pays %s at once', (cur, text, biller) => {
    expect(atOnce(parse(cur, text))?.input.biller).toBe(biller);
  });
});
