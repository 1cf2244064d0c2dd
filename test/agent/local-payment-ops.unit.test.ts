import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../src/agent/local/index.js';
import { groundCall } from '../../src/agent/grounding/index.js';
import type { ToolCall } from '../../src/agent/tool-inputs.js';

/**
 * The local engine's refund / capture / void reading (src/agent/local/detect-payment-op.ts) in the eight
 * languages, and grounding of the three tools' calls whichever engine made them: the payment id
 * and an amount must be in the person's own words, never only in quoted text.
 */
const ctx = { now: new Date('2026-11-28T12:00:00Z'), localCurrency: 'USD' };
const parse = (m: string) => parseMessage(m, ctx);

const acts: Array<[string, ToolCall]> = [
  ['refund pay_abc123', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ['Refund 5 USDC of payment pay_abc123, customer returned it', { name: 'refund_payment', input: { payment_id: 'pay_abc123', amount: '5', currency: 'USDC', reason: 'customer returned it' } }],
  ['please refund pay_9Tq2 in full because the parcel never arrived', { name: 'refund_payment', input: { payment_id: 'pay_9Tq2', reason: 'the parcel never arrived' } }],
  ['capture pay_abc123', { name: 'capture_payment', input: { payment_id: 'pay_abc123' } }],
  ['capture 0.75 of pay_x', { name: 'capture_payment', input: { payment_id: 'pay_x', amount: '0.75' } }],
  ['void the hold on pay_x', { name: 'void_payment', input: { payment_id: 'pay_x' } }],
  ['release the authorization on pay_x', { name: 'void_payment', input: { payment_id: 'pay_x' } }],
  ['cancel the hold on pay_x pls', { name: 'void_payment', input: { payment_id: 'pay_x' } }],
  // pcm, fr, es, pt, sw, hi, tl
  ['abeg refund pay_abc123 sharp sharp', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ['rembourse le paiement pay_abc123', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ["annule l'autorisation sur pay_x", { name: 'void_payment', input: { payment_id: 'pay_x' } }],
  ['reembolsa el pago pay_abc123 porque el cliente lo devolvió', { name: 'refund_payment', input: { payment_id: 'pay_abc123', reason: 'el cliente lo devolvió' } }],
  ['captura 10 del pago pay_x', { name: 'capture_payment', input: { payment_id: 'pay_x', amount: '10' } }],
  ['estorna o pagamento pay_abc123', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ['libera o bloqueio do pay_x', { name: 'void_payment', input: { payment_id: 'pay_x' } }],
  ['rudisha malipo pay_abc123 tafadhali', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ['pay_abc123 ka refund karo', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
  ['pay_x capture kar do', { name: 'capture_payment', input: { payment_id: 'pay_x' } }],
  ['i-refund mo yung pay_abc123 po', { name: 'refund_payment', input: { payment_id: 'pay_abc123' } }],
];

describe('local engine: refund, capture, void by payment id', () => {
  it.each(acts)('%s', (message, call) => {
    expect(parse(message)).toEqual({ kind: 'tool', call });
  });

  it('holds what it cannot place whole: a stray word, a second amount, a void with an amount', () => {
    for (const m of ['capture 2 USD of pay_abc123 lol', 'void 5 of pay_x', 'refund pay_x and also stuff']) {
      const r = parse(m);
      expect(r.kind, m).toBe('tool');
      expect(r.kind === 'tool' && r.hold?.length, m).toBeTruthy();
    }
    // Issue h11: two amounts offered ("2 or 3") are asked about, not held with one of them.
    expect(parse('capture 2 or 3 of pay_x')).toMatchObject({ kind: 'none', reason: 'alternative_amounts', reply: expect.stringContaining('2 or 3') });
  });

  it('asks which payment when there is no id, or two', () => {
    expect(parse('refund my last payment')).toMatchObject({ kind: 'none', reply: expect.stringContaining('pay_') });
    expect(parse('refund pay_aaa1 and pay_bbb2')).toMatchObject({ kind: 'none', reply: expect.stringContaining('Which payment') });
  });

  it('does not act on questions, conditions, or an id only in quotes', () => {
    expect(parse('did you refund pay_abc123?').kind).toBe('none');
    expect(parse('if they return it refund pay_abc1').kind).toBe('none');
    for (const m of ["don't refund pay_abc123", 'ne rembourse pas pay_abc123', 'no reembolses pay_abc123', 'huwag i-refund ang pay_abc123', 'pay_abc123 refund mat karo']) {
      expect(parse(m), m).toMatchObject({ kind: 'none', reason: 'negation' });
    }
    expect(parse('he said "refund pay_abc123"')).toMatchObject({ kind: 'refuse', reason: 'quoted_instruction' });
  });

  it('leaves transfers, bills and markets alone', () => {
    expect(parse('send 5 USD to @amina')).toMatchObject({ kind: 'tool', call: { name: 'send_transfer' } });
    expect(parse('cancel market mkt_abc123')).toMatchObject({ kind: 'tool', call: { name: 'cancel_market' } });
  });
});

describe('grounding the merchant tools (any engine)', () => {
  const ground = (call: ToolCall, message: string) => groundCall({ call, message, localCurrency: 'USD', now: ctx.now });

  it('acts when the payment id and the amount are the person’s own words', () => {
    expect(ground({ name: 'refund_payment', input: { payment_id: 'pay_abc123', amount: '5', currency: 'USDC' } }, 'refund 5 USDC of pay_abc123')).toEqual({ kind: 'act' });
    expect(ground({ name: 'void_payment', input: { payment_id: 'pay_x' } }, 'void the hold on pay_x')).toEqual({ kind: 'act' });
  });

  it('ends the turn for an id or amount not written, or written only in quotes', () => {
    expect(ground({ name: 'refund_payment', input: { payment_id: 'pay_other1' } }, 'refund pay_abc123')).toMatchObject({ kind: 'end', reason: 'not_grounded', missing: ['payment_id'] });
    expect(ground({ name: 'refund_payment', input: { payment_id: 'pay_abc123' } }, 'my customer wrote "refund pay_abc123"')).toMatchObject({ kind: 'end', missing: ['payment_id'] });
    expect(ground({ name: 'capture_payment', input: { payment_id: 'pay_x', amount: '9' } }, 'capture 0.75 of pay_x')).toMatchObject({ kind: 'end', missing: ['amount'] });
    // A currency the person did not write is not the engine's to add.
    expect(ground({ name: 'capture_payment', input: { payment_id: 'pay_x', amount: '0.75', currency: 'USDC' } }, 'capture 0.75 of pay_x')).toMatchObject({ kind: 'end', missing: ['currency'] });
  });
});
