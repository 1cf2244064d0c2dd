/**
 * Paying a checkout session from any phone wallet (issue 15, point 6; docs/settlement.md,
 * "Deposit addresses"). Each session shown to a customer gets a deposit address of its own
 * (a key on the deposit branch, derived on demand, never stored), so a plain ERC-20 transfer
 * to it identifies the session. The watcher (one pass under the `watch:deposits` lease):
 *
 * - credits token Transfer logs into watched deposit addresses to their sessions;
 * - hands money at a pending session over to the deposit-address payment method,
 *   `pay(id, { method: 'deposit-address', deposit })` (issue 22): its adapter
 *   (src/checkout-sessions/methods/deposit-address.ts) turns it into the sweep's EIP-3009
 *   authorization signed by the deposit key, or refuses by name (under-paid, expired, a signed
 *   attempt open...); settlement sweeps exactly the amount to pay_to (deposit-sweep.ts, nonce:
 *   the payment id and 'deposit-sweep', so it moves once), and this pass finishes a sweep in flight;
 * - gives back every transfer that cannot pay the session (it expired, was canceled, failed,
 *   or was paid already, through the page or an earlier sweep), each to its sender, once
 *   (nonce: the payment id and the transfer's log id).
 *
 * Every intent is stored before its transaction is sent, so a pass after a crash finishes it
 * from the chain (the authorization state says whether it was used) instead of moving twice.
 * Each sweep and give-back is one owner attempt on the attempt ledger (src/chain/owned-relay.ts,
 * issue 21): a pass on another instance never sends it again, nor calls it failed (which puts
 * the session back to `pending`), while the owner's transaction could still land.
 */
import { getAddress, type Address } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import { relayOwned, type RelayAttempts } from '../chain/owned-relay.js';
import type { Logger } from '../lib/logger.js';
import { nowIso } from '../lib/ids.js';
import { modeMark, servedBy } from '../lib/livemode.js';
import { rangeAll, StoreConflictError, type Store } from '../store/index.js';
import type { Payment, PaymentsService } from '../payments/payments.js';
import { DEPOSIT_SWEEP_NONCE_KIND, type DepositAddressInput, type DepositSweeps } from './deposit-sweep.js';
import { DepositIndexes } from './deposit-indexes.js';
import { acceptsDeposits, credited, Deposits, hasWork, max0, DepositScan, CURSOR_ID, FIRST_SCAN_LOOKBACK, PAGE, IDLE_CURSOR_LAG, RESCAN_OVERLAP, type Deposit, type DepositInfo, type DepositPassSummary, type DepositTransfer } from './deposit-records.js';

export { acceptsDeposits, Deposits, type Deposit, type DepositInfo, type DepositPassSummary, type DepositTransfer } from './deposit-records.js';

/** Pays a session from its deposit (`ok`: settled now). */
export type DepositHandOver = (p: Payment, input: DepositAddressInput) => Promise<{ ok: boolean }>;

export interface DepositWatcherOptions {
  store: Store;
  payments: PaymentsService;
  chain: ChainPort;
  logger: Logger;
  /** Finishes a sweep in flight (settlement's deposit-address route, deposit-sweep.ts). */
  sweeps: Pick<DepositSweeps, 'resume'>;
  /**
   * The hand-over: `pay(id, { method: 'deposit-address', deposit })` (the composition root wires
   * CheckoutSessions.pay, src/core/build.ts); `handOver` may set it after construction.
   */
  pay: DepositHandOver;
  /** The settlement's per-payment queue: a deposit decision never interleaves with a settle of the same payment. */
  exclusive: <T>(paymentId: string, fn: () => Promise<T>) => Promise<T>;
  /** The attempt ledger: one owner per sweep and give-back across instances. */
  attempts: RelayAttempts;
  /** How long a session's address is watched after it ends. */
  graceMs: number;
  /** Receipt wait of a sweep or refund within a pass (then the next pass looks again). */
  relayWaitMs?: number;
  livemode?: boolean; // with a chain per mode: the mode whose addresses this chain's watcher scans; unset: all
}

export { DEPOSIT_SWEEP_NONCE_KIND };
export const DEPOSIT_REFUND_NONCE_KIND = 'deposit-refund';

export class DepositWatcher {
  private readonly o: DepositWatcherOptions;
  private readonly log: Logger;
  private running: Promise<DepositPassSummary> | undefined;
  private readonly indexes: DepositIndexes;
  private pay: DepositHandOver;

  constructor(o: DepositWatcherOptions) {
    this.o = o;
    this.log = o.logger;
    this.pay = o.pay;
    this.indexes = new DepositIndexes(o.store, (i) => o.chain.depositAddress(i), () => o.store.table(Deposits).count());
  }

  /** Points the hand-over at the registered deposit-address method (CheckoutSessions.pay). */
  handOver(pay: DepositHandOver): void {
    this.pay = pay;
  }

  /** The EIP-681 link paying `amount` into `address`. */
  uri(address: Address, amount: bigint): string {
    return `ethereum:${this.o.chain.tokenAddress}@${this.o.chain.chainId}/transfer?address=${address}&uint256=${amount}`;
  }

  /** The deposit of a payment, if one was ever given out. */
  async get(paymentId: string): Promise<Deposit | undefined> {
    return this.o.store.table(Deposits).get(paymentId);
  }

  /**
   * The session's deposit address, given out on first use (only while the payment can be paid):
   * the next index on the deposit branch, kept unique by the store.
   */
  async depositFor(p: Payment): Promise<DepositInfo | undefined> {
    let d = await this.get(p.id);
    if (!d) {
      if (p.status !== 'pending') return undefined;
      d = await this.allocate(p);
    }
    const received = credited(d).reduce((s, t) => s + BigInt(t.value), 0n);
    const amount = BigInt(p.stablecoinAmount);
    const remaining = received >= amount ? 0n : amount - received;
    const address = getAddress(d.address);
    return { address, received, remaining, ...(remaining > 0n ? { uri: this.uri(address, remaining) } : {}) };
  }

  private async allocate(p: Payment): Promise<Deposit> {
    const watchUntil = new Date(Date.parse(p.expiresAt) + this.o.graceMs).toISOString();
    for (let attempt = 0; ; attempt++) {
      try {
        // An index from a block reserved ahead, its address derived already (deposit-indexes.ts);
        // the unique key on `index` guards across instances as well.
        const { index, address } = await this.indexes.next();
        return await this.o.store.transaction(async (tx) => {
          const t = tx.table(Deposits);
          const existing = await t.get(p.id);
          if (existing) return existing;
          const now = nowIso();
          return t.insert({
            id: p.id,
            index,
            address,
            createdAt: now,
            watch: 'open',
            watchUntil,
            transfers: [],
            ...modeMark(p.livemode),
            updatedAt: now,
          });
        });
      } catch (e) {
        if (!(e instanceof StoreConflictError) || attempt >= 5) throw e;
        const existing = await this.get(p.id);
        if (existing) return existing;
      }
    }
  }

  // -------------------------------------------------------------------------- the pass

  /** One pass (the scheduler's `watch:deposits` job); a call during a pass joins it. */
  pass(): Promise<DepositPassSummary> {
    this.running ??= this.passOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async passOnce(): Promise<DepositPassSummary> {
    const summary: DepositPassSummary = { credited: 0, settled: 0, refunded: 0, closed: 0 };
    // The latest block before the set of addresses: a deposit given out after this read can
    // only be paid in a later block, which the next pass scans with it (docs/settlement.md).
    const latest = await this.o.chain.latestBlockNumber();
    const rows = await this.watched();
    const cursor = await this.o.store.table(DepositScan).get(this.cursorId);
    const fresh = new Set<string>();
    const from = cursor ? max0(BigInt(cursor.block) + 1n - RESCAN_OVERLAP) : latest > FIRST_SCAN_LOOKBACK ? latest - FIRST_SCAN_LOOKBACK : 0n;
    if (rows.length > 0 && from <= latest) {
      const logs = await this.o.chain.findTransfersTo(
        rows.map((r) => getAddress(r.address)),
        from,
        latest,
      );
      const byAddress = new Map(rows.map((r) => [r.address.toLowerCase(), r.id]));
      const byDeposit = new Map<string, DepositTransfer[]>();
      for (const l of logs) {
        const id = byAddress.get(l.to.toLowerCase());
        if (!id) continue;
        const list = byDeposit.get(id) ?? [];
        list.push({
          id: `${l.txHash.toLowerCase()}:${l.logIndex}`,
          txHash: l.txHash,
          logIndex: l.logIndex,
          blockNumber: l.blockNumber.toString(),
          from: getAddress(l.from),
          value: l.value.toString(),
        });
        byDeposit.set(id, list);
      }
      for (const [id, list] of byDeposit) {
        const n = await this.credit(id, list);
        summary.credited += n;
        if (n > 0) fresh.add(id);
      }
    }
    // Idle (nothing watched), the cursor is only moved now and then: no store write every pass.
    const behind = cursor ? latest - BigInt(cursor.block) : latest + 1n;
    if (behind > 0n && (rows.length > 0 || behind > IDLE_CURSOR_LAG)) await this.saveCursor(latest);
    // Only deposits with something to do: money in, a move in flight, or their watch over.
    for (const r of rows.filter((x) => fresh.has(x.id) || hasWork(x))) {
      try {
        const out = await this.decide(r.id);
        summary.settled += out.settled;
        summary.refunded += out.refunded;
        summary.closed += out.closed;
      } catch (err) {
        this.log.warn({ err, paymentId: r.id }, 'deposit decision failed; next pass');
      }
    }
    if (summary.credited + summary.settled + summary.refunded > 0) this.log.info(summary, 'deposit watcher pass');
    return summary;
  }

  private async watched(): Promise<Deposit[]> {
    const rows = await rangeAll(this.o.store.table(Deposits), { watch: 'open' }, { field: 'watchUntil', limit: PAGE });
    return rows.filter((r) => servedBy(r, this.o.livemode));
  }

  /** Each chain's scan has its own cursor (block numbers of different chains never compare). */
  private get cursorId(): string {
    return this.o.livemode === false ? `${CURSOR_ID}:test` : CURSOR_ID;
  }

  /** Adds the transfers not credited yet; returns how many. */
  private credit(id: string, list: DepositTransfer[]): Promise<number> {
    return this.o.store.write(Deposits, async (t) => {
      const d = await t.get(id);
      if (!d) return 0;
      const seen = new Set(d.transfers.map((x) => x.id));
      const fresh = list.filter((x) => !seen.has(x.id));
      if (fresh.length === 0) return 0;
      await t.update(id, { transfers: [...d.transfers, ...fresh], updatedAt: nowIso() });
      for (const x of fresh) this.log.info({ paymentId: id, txHash: x.txHash, from: x.from, value: x.value }, 'deposit received');
      return fresh.length;
    });
  }

  private async saveCursor(block: bigint): Promise<void> {
    await this.o.store.write(DepositScan, async (t) => {
      const c = await t.get(this.cursorId);
      if (!c) await t.insert({ id: this.cursorId, block: block.toString(), updatedAt: nowIso() });
      else if (BigInt(c.block) < block) await t.update(this.cursorId, { block: block.toString(), updatedAt: nowIso() });
    });
  }

  // -------------------------------------------------------------------------- decisions

  /**
   * What one deposit needs now: finish a sweep in flight, hand money at a payable session over to
   * the deposit-address method (which sweeps it or refuses by name), give back what cannot pay.
   */
  private async decide(id: string): Promise<{ settled: number; refunded: number; closed: number }> {
    const out = { settled: 0, refunded: 0, closed: 0 };
    if (await this.o.exclusive(id, () => this.resume(id))) out.settled++;
    // Outside the payment's queue: `pay` settles in it (settlement.ts).
    if (await this.payFromDeposit(id)) out.settled++;
    const rest = await this.o.exclusive(id, () => this.giveBack(id));
    out.refunded += rest.refunded;
    out.closed += rest.closed;
    return out;
  }

  /** A sweep in flight (a lost answer, a crash, a receipt wait that ran out) is finished from the chain. */
  private async resume(id: string): Promise<boolean> {
    const d = await this.get(id);
    return d !== undefined && d.watch === 'open' && d.sweep !== undefined && !d.sweep.done && (await this.o.sweeps.resume(d));
  }

  /** Money at a session that may still be paid goes to `pay(id, { method: 'deposit-address' })`; true once settled. */
  private async payFromDeposit(id: string): Promise<boolean> {
    const [d, p] = await Promise.all([this.get(id), this.o.payments.get(id)]);
    if (!d || !p || d.watch !== 'open' || d.sweep || p.status !== 'pending' || credited(d).length === 0) return false;
    const paid = await this.pay(p, { method: 'deposit-address', deposit: d });
    return paid.ok;
  }

  /** Gives back every transfer that cannot pay the session; closes the watch once its grace is over and nothing is left. */
  private async giveBack(id: string): Promise<{ refunded: number; closed: number }> {
    const out = { refunded: 0, closed: 0 };
    let d = await this.get(id);
    const p = await this.o.payments.get(id);
    if (!d || !p || d.watch !== 'open') return out;
    for (const t of d.transfers) {
      if (t.refundTxHash) continue;
      const inSweep = d.sweep !== undefined && !d.sweep.done && d.sweep.transferIds.includes(t.id);
      const refundable = t.use === 'refund' || (t.use === undefined && !inSweep && !acceptsDeposits(p));
      if (refundable && (await this.refund(d, t))) out.refunded++;
    }

    d = await this.get(id);
    if (d && Date.parse(d.watchUntil) <= Date.now() && !(d.sweep && !d.sweep.done) && !d.transfers.some((t) => t.use === 'refund' && !t.refundTxHash)) {
      if (await this.o.store.write(Deposits, (t) => t.update(id, { watch: 'closed', updatedAt: nowIso() }, { watch: 'open' }))) out.closed++;
    }
    return out;
  }

  /** Gives one transfer back to its sender (intent stored first); true once mined. */
  private async refund(d: Deposit, t: DepositTransfer): Promise<boolean> {
    if (t.use !== 'refund') {
      const marked = await this.o.store.write(Deposits, async (tbl) => {
        const cur = await tbl.get(d.id);
        const x = cur?.transfers.find((y) => y.id === t.id);
        if (!cur || !x || x.use !== undefined) return false;
        await tbl.update(d.id, { transfers: cur.transfers.map((y) => (y.id === t.id ? { ...y, use: 'refund' as const } : y)), updatedAt: nowIso() });
        return true;
      });
      if (!marked) return false;
    }
    const from = getAddress(d.address);
    const nonce = this.o.chain.nonceFor(DEPOSIT_REFUND_NONCE_KIND, `${d.id}:${t.id}`);
    const relayed = await relayOwned(this.o.chain, this.o.attempts, {
      kind: DEPOSIT_REFUND_NONCE_KIND,
      subject: d.id,
      from,
      nonce,
      sign: () => this.o.chain.signDepositAuthorization({ fromIndex: d.index, to: getAddress(t.from), value: BigInt(t.value), nonce }),
      timeoutMs: this.o.relayWaitMs ?? 10_000,
      since: d.createdAt,
    });
    if (relayed.status !== 'settled') {
      if (relayed.status === 'failed') this.log.warn({ paymentId: d.id, transfer: t.id, reason: relayed.reason }, 'deposit refund failed; next pass');
      return false;
    }
    const txHash = relayed.txHash;
    await this.o.store.write(Deposits, async (tbl) => {
      const cur = await tbl.get(d.id);
      if (!cur) return;
      await tbl.update(d.id, {
        transfers: cur.transfers.map((y) => (y.id === t.id ? { ...y, use: 'refund' as const, refundTxHash: txHash, refundedAt: nowIso() } : y)),
        updatedAt: nowIso(),
      });
    });
    this.log.info({ paymentId: d.id, to: t.from, value: t.value, txHash }, 'deposit given back to its sender');
    return true;
  }

}

