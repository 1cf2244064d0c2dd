import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BillsService } from '../../src/bills/bills.js';
import { ClaimsService } from '../../src/claims/claims.js';
import { MarketsService } from '../../src/markets/markets.js';
import { TransfersService } from '../../src/transfers/transfers.js';
import { MoneyModule } from '../../src/wallet/money-module.js';

/**
 * Issue 22, step 5, "data access once": the paged range read is one store helper (`rangePages` /
 * `rangeAll`, src/store/range.ts), so no module outside the store pages `findRange` itself; and
 * the money modules share one construction and one "relay, record, failure" block
 * (src/wallet/money-module.ts: `MoneyModule`, `recordUserMove`); and the domain sees the chain as
 * one port, `ChainPort` (src/chain/chain-port.ts), naming a member of the wider `ChainService` only
 * where listed below (docs/architecture.md, "The chain floor and the relay path").
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) files(full, out);
    else if (e.name.endsWith('.ts')) out.push(full);
  }
  return out;
}
const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');

describe('data access once', () => {
  it('no module outside src/store calls findRange (pages go through rangePages / rangeAll)', () => {
    const callers = files(SRC)
      .filter((f) => !rel(f).startsWith('store/'))
      .filter((f) => /\.findRange\(/.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(callers).toEqual([]);
  });

  it('transfers, bills, markets and claims are money modules: one construction, one move, one recorded outcome', () => {
    for (const m of [TransfersService, BillsService, MarketsService, ClaimsService]) expect(m.prototype, m.name).toBeInstanceOf(MoneyModule);
    for (const f of ['transfers/transfers.ts', 'bills/bills.ts', 'markets/markets.ts', 'claims/claims.ts']) {
      const text = readFileSync(path.join(SRC, f), 'utf8');
      expect(text, f).toMatch(/recordUserMove(<\w+>)?\(/);
      // The custodial move is the module's `move` (moveOnce with its wait and attempt ledger given once).
      expect(text, f).not.toMatch(/\bmoveOnce\(/);
    }
  });

  it('outside the chain floor and the composition root, ChainService (src/chain/chain.ts) is named only by the listed picks', () => {
    const WIDER = [
      'checkout-sessions/pay.ts', // PayRails: signAsCustodial (app wallet), faucet (dev test wallet)
      'wallet/wallets.ts', // the facade doors read: dev faucet, readiness, the embedded RPC URL
      'x402/auth-capture/auth-capture-port.ts', // the escrow's reads through the node client, built by the root
      'x402/auth-capture/scheme.ts', // the relayer call port's types (sent only through relayOnce)
    ];
    const naming = files(SRC)
      .map(rel)
      .filter((f) => !f.startsWith('chain/') && !f.startsWith('core/'))
      .filter((f) => /from '(\.\.\/)+chain\/chain\.js'/.test(readFileSync(path.join(SRC, f), 'utf8')))
      .sort();
    expect(naming).toEqual(WIDER.sort());
  });
});
