/**
 * The relayer's transaction nonces.
 *
 * viem's nonce manager counts on from the last nonce it handed out whenever the node reports a
 * lower pending nonce. When the node loses one of our transactions (dropped from the pool,
 * evicted, or a send that never arrived), that counter runs past the lost nonce and every later
 * transaction queues behind the gap forever. Here each nonce handed out is tracked until the
 * node's pending nonce passes it, and before every hand-out the node's pending nonce is compared
 * with ours: a lost nonce is handed out again, filling the gap.
 */
import type { Hex } from 'viem';
import type { Logger } from '../lib/logger.js';

type Slot =
  /** Handed out; the send has not finished. */
  | { state: 'sending' }
  /** The node took it, or may have (the send's outcome is unknown). */
  | { state: 'sent'; hash: Hex }
  /** The send failed before reaching the node, or the node refused it: the nonce is unused. */
  | { state: 'free' };

export interface RelayerNonceSource {
  /** The node's pending nonce for the relayer (`eth_getTransactionCount(..., 'pending')`). */
  pendingNonce(): Promise<number>;
  /** True when the node knows the transaction (in its pool or mined). */
  isKnown(hash: Hex): Promise<boolean>;
}

export class RelayerNonces {
  /** Next nonce to hand out; undefined until the node was asked. */
  private next: number | undefined;
  /** Nonces handed out at or above the node's last pending nonce. */
  private readonly slots = new Map<number, Slot>();
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly source: RelayerNonceSource,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** A nonce for one send; follow up with `sent` or `release`. Throws if the node cannot be asked. */
  async take(): Promise<number> {
    // Sends that start together share one look at the node, as viem's manager does.
    this.syncing ??= this.sync().finally(() => {
      this.syncing = undefined;
    });
    await this.syncing;
    let n = this.next!;
    // After a gap was found, the nonces above it may still carry live transactions: keep them.
    while (this.slots.get(n)?.state === 'sending' || this.slots.get(n)?.state === 'sent') n++;
    this.next = n + 1;
    this.slots.set(n, { state: 'sending' });
    return n;
  }

  /** The node took the transaction, or may have (timeout, connection reset after sending). */
  sent(nonce: number, hash: Hex): void {
    if (this.slots.has(nonce)) this.slots.set(nonce, { state: 'sent', hash });
  }

  /** Nothing with this nonce reached the node (or the node refused it): it may be reused. */
  release(nonce: number): void {
    if (!this.slots.has(nonce)) return;
    if (this.next === nonce + 1) {
      this.slots.delete(nonce);
      this.next = nonce;
    } else {
      this.slots.set(nonce, { state: 'free' });
    }
  }

  private async sync(): Promise<void> {
    const pending = await this.source.pendingNonce();
    for (const n of this.slots.keys()) if (n < pending) this.slots.delete(n);
    if (this.next === undefined || pending >= this.next) {
      // First use, or the account moved on without us (another sender with this key).
      this.next = pending;
      return;
    }
    // The node has nothing at `pending`, yet we handed it out: unless that send is still on
    // its way, the transaction is lost and every nonce after it waits behind the gap.
    const slot = this.slots.get(pending);
    if (slot?.state === 'sending') return;
    if (slot?.state === 'sent' && (await this.source.isKnown(slot.hash).catch(() => true))) return;
    // The ones above it may be gone too (anvil drops a transaction's dependents with it; a
    // pool may evict them) or still queued: reuse the lost ones, keep the live ones.
    const lost = [pending];
    for (let n = pending + 1; n < this.next; n++) {
      const s = this.slots.get(n);
      if (s?.state === 'sending') continue;
      if (s?.state === 'sent' && (await this.source.isKnown(s.hash).catch(() => true))) continue;
      lost.push(n);
    }
    this.log.warn(
      { lostNonces: lost, handedOutUpTo: this.next - 1, lostTx: slot?.state === 'sent' ? slot.hash : undefined },
      'relayer nonce gap: the node lost transactions; reusing their nonces',
    );
    for (const n of lost) if (this.slots.get(n)?.state !== 'sending') this.slots.set(n, { state: 'free' });
    this.next = pending;
  }
}
