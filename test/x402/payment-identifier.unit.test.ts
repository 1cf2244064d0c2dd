/** The payment-identifier ledger on its own: bind at first use, replay stored successes, join concurrent runs. */
import { describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/store/index.js';
import { PaymentIdentifierLedger, fingerprintOf, paymentIdentifierOf } from '../../src/x402/payment-identifier.js';

const key = { scope: 'acct:a', payer: '0xAbC0000000000000000000000000000000000001', id: 'pay_0123456789abcdef' };

describe('PaymentIdentifierLedger', () => {
  it('runs a new id once, replays a stored success, refuses another payload', async () => {
    const ledger = new PaymentIdentifierLedger(LowdbStore.inMemory());
    let runs = 0;
    const ok = async () => ((runs += 1), { value: { tx: '0x1' }, final: true });
    expect(await ledger.run(key, 'f1', ok)).toEqual({ kind: 'fresh', value: { tx: '0x1' } });
    expect(await ledger.run({ ...key, payer: key.payer.toLowerCase() }, 'f1', ok)).toEqual({ kind: 'replayed', value: { tx: '0x1' } });
    expect(await ledger.run(key, 'f2', ok)).toEqual({ kind: 'conflict' });
    expect(runs).toBe(1);
    expect(await ledger.peek(key, 'f1')).toEqual({ outcome: { tx: '0x1' } });
    expect(await ledger.peek(key, 'f2')).toBe('conflict');
    // Another payer's id is its own.
    expect((await ledger.run({ ...key, payer: '0x0000000000000000000000000000000000000002' }, 'f2', ok)).kind).toBe('fresh');
  });

  it('does not store a failure (the same payload runs again) but keeps the id bound to its payload', async () => {
    const ledger = new PaymentIdentifierLedger(LowdbStore.inMemory());
    let runs = 0;
    const fails = async () => ((runs += 1), { value: { ok: false }, final: false });
    await ledger.run(key, 'f1', fails);
    await ledger.run(key, 'f1', fails);
    expect(runs).toBe(2);
    expect(await ledger.run(key, 'f2', fails)).toEqual({ kind: 'conflict' });
    expect(await ledger.peek(key, 'f1')).toBe('none');
  });

  it('joins concurrent runs of the same payload; a different payload meanwhile is a conflict', async () => {
    const ledger = new PaymentIdentifierLedger(LowdbStore.inMemory());
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async () => {
      runs += 1;
      await gate;
      return { value: 'tx', final: true };
    };
    const all = Array.from({ length: 20 }, () => ledger.run(key, 'f1', slow));
    expect(await ledger.run(key, 'f2', slow)).toEqual({ kind: 'conflict' });
    release();
    const results = await Promise.all(all);
    expect(runs).toBe(1);
    expect(new Set(results.map((r) => ('value' in r ? r.value : r.kind)))).toEqual(new Set(['tx']));
  });

  it('reads the id from the extension and refuses a malformed one; the fingerprint ignores extensions', () => {
    const base = { x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:1', amount: '1', asset: '0x', payTo: '0x', maxTimeoutSeconds: 60 }, payload: { a: 1 } };
    expect(paymentIdentifierOf(base)).toEqual({});
    const ext = (id?: string) => ({ ...base, extensions: { 'payment-identifier': { info: { required: false, ...(id === undefined ? {} : { id }) } } } });
    expect(paymentIdentifierOf(ext())).toEqual({});
    expect(paymentIdentifierOf(ext('pay_0123456789abcdef'))).toEqual({ id: 'pay_0123456789abcdef' });
    expect(paymentIdentifierOf(ext('short')).invalid).toBeTruthy();
    expect(paymentIdentifierOf(ext('has spaces in it!!!!')).invalid).toBeTruthy();
    expect(fingerprintOf(ext('pay_0123456789abcdef'))).toBe(fingerprintOf(base));
    expect(fingerprintOf({ ...base, payload: { a: 2 } })).not.toBe(fingerprintOf(base));
  });
});
