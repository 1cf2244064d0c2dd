/**
 * The relay journal's upkeep (relay-journal.ts says why the journal exists): the start-up
 * replay of what the chain lost, and the background sweep that forgets entries behind the
 * chain and re-sends dropped ones.
 */
import type { Address, Hex } from 'viem';
import type { Logger } from '../lib/logger.js';
import { revertReason } from './node-errors.js';
import { isKnownTransaction, type NodeClient } from './node-reads.js';
import type { JournalEntry, RelayJournal } from './relay-journal.js';
import type { ReceiptOutcome } from './chain-results.js';

// A journaled transaction neither mined nor in the node's pool after this long was dropped.
const JOURNAL_RESEND_AFTER_MS = 30_000;
// Embedded: a transaction at the relayer's next nonce held in anvil's pool but not ready after this long is stuck.
const EMBEDDED_STUCK_AFTER_MS = 2_000;

export interface JournalRecoveryContext {
  log: Logger;
  embedded: boolean;
  chainId: number;
  relayerAddress: Address;
  publicClient: NodeClient;
  journal: RelayJournal;
  /** Real network: how long a mined entry is kept (reorgs). */
  retentionMs: number;
  waitForReceipt(txHash: Hex, timeoutMs?: number): Promise<ReceiptOutcome>;
  /**
   * Whether a journaled transaction that carries attempts (`owners`) may be broadcast again now:
   * each is still the generation that signed it and inside its broadcast window on the store's
   * clock, or ended with this very transaction (src/settlement/attempts.ts, journalResendGate).
   * Without it, every entry is sent again (one process owns everything).
   */
  mayResend?(entry: JournalEntry): Promise<boolean>;
  /** Puts a transaction that moves nothing at `nonce`, journaled in place of the entry there (RelayerSender.fill). */
  fillNonce?(nonce: number): Promise<Hex>;
}

/** What to do with a journaled transaction the node does not know. */
type Resend = { send: true } | { send: false; fill: boolean };

export class RelayJournalRecovery {
  private readonly startedAt = Date.now();
  /**
   * Journal entries the node did not know at this start, whether or not the replay got them
   * out (a refusal stops it; the sweep re-sends the rest later): the fallback state written
   * before the replay (anvil-fallback.ts) lacks them, so the embedded sweep keeps them.
   */
  private readonly replayed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly ctx: JournalRecoveryContext) {}

  /**
   * Start-up: re-broadcasts, in nonce order, every journaled transaction the node does not
   * know (the embedded chain came back from an older dump, or a pool dropped it). The same
   * signed bytes carry the same nonce and hash, and each authorization's EIP-3009 nonce makes a
   * second execution impossible, so this never pays twice. Waits for the re-sent ones on the
   * embedded chain (it mines at once), so records read after start-up see them mined.
   */
  async recover(): Promise<{ resent: number; dropped: number }> {
    const { ctx } = this;
    const entries = await ctx.journal.list(ctx.chainId, ctx.relayerAddress);
    if (entries.length === 0) return { resent: 0, dropped: 0 };
    const mined = await ctx.publicClient.getTransactionCount({ address: ctx.relayerAddress, blockTag: 'latest' });
    const resent: Hex[] = [];
    const stale: string[] = [];
    for (const e of entries) {
      if (await isKnownTransaction(ctx.publicClient, e.hash)) continue;
      this.replayed.add(e.id);
      if (e.nonce < mined) {
        // Another transaction took this nonce (a send from outside this service): ours can never be mined.
        ctx.log.error({ txHash: e.hash, nonce: e.nonce }, 'a journaled transaction lost its nonce to another transaction');
        stale.push(e.id);
        continue;
      }
      try {
        const how = await this.resendable(e);
        if (!how.send) {
          // Another instance owns its attempt now (or its window closed): its bytes stay here.
          if (how.fill) resent.push(await ctx.fillNonce!(e.nonce));
          else stale.push(e.id);
          continue;
        }
        await ctx.publicClient.sendRawTransaction({ serializedTransaction: e.raw });
        resent.push(e.hash);
      } catch (err) {
        const message = revertReason(err);
        if (/already known|known transaction/i.test(message)) continue;
        if (/nonce too low/i.test(message)) {
          stale.push(e.id);
          continue;
        }
        // Later nonces would wait behind this one forever; stop and let the sweep try again.
        // None of them went out at this start: keep them all past the sweep's pruning.
        ctx.log.error({ txHash: e.hash, nonce: e.nonce, err: message }, 'could not re-broadcast a journaled transaction');
        for (const later of entries) if (later.nonce > e.nonce) this.replayed.add(later.id);
        break;
      }
    }
    await ctx.journal.remove(stale);
    if (resent.length > 0) {
      ctx.log.warn({ count: resent.length, first: resent[0] }, 're-broadcast journaled transactions the chain had lost');
      if (ctx.embedded) await Promise.all(resent.map((h) => ctx.waitForReceipt(h, 10_000)));
    }
    return { resent: resent.length, dropped: stale.length };
  }

  /**
   * Background: forgets entries safely behind the chain (their nonce is mined and they are
   * older than the retention, long enough for the embedded chain's next state dump) and
   * re-sends entries the node has lost (a dropped transaction on a real network).
   */
  async sweep(now = Date.now()): Promise<{ resent: number; removed: number }> {
    const { ctx } = this;
    if (this.stopped) return { resent: 0, removed: 0 };
    const entries = await ctx.journal.list(ctx.chainId, ctx.relayerAddress);
    if (entries.length === 0) return { resent: 0, removed: 0 };
    const [mined, pending] = await Promise.all([
      ctx.publicClient.getTransactionCount({ address: ctx.relayerAddress, blockTag: 'latest' }),
      ctx.publicClient.getTransactionCount({ address: ctx.relayerAddress, blockTag: 'pending' }),
    ]);
    const old = (e: JournalEntry, ms: number) => now - Date.parse(e.createdAt) > ms;
    // Embedded: a dump cut short or torn by the crash falls back to the copy taken at start-up
    // (startEmbeddedAnvil), so keep everything that copy lacks: this run's transactions and the
    // ones re-broadcast at this start, however old (the chain's own state grows faster than
    // the journal; the next start takes a new copy and prunes it).
    // Real network: keep mined ones for the retention (reorgs).
    const inBackup = (e: JournalEntry) => Date.parse(e.createdAt) < this.startedAt && !this.replayed.has(e.id);
    const removable = (e: JournalEntry) => e.nonce < mined && (ctx.embedded ? inBackup(e) : old(e, ctx.retentionMs));
    const remove = entries.filter(removable).map((e) => e.id);
    await ctx.journal.remove(remove);
    if (ctx.embedded && pending === mined && (await this.unstick(entries, mined, now))) {
      return { resent: entries.filter((e) => e.nonce >= mined).length, removed: remove.length };
    }
    let resent = 0;
    // Not in the pool and not mined after a while: dropped. Re-send in nonce order.
    for (const e of entries) {
      if (e.nonce < pending || !old(e, JOURNAL_RESEND_AFTER_MS)) continue;
      if (await isKnownTransaction(ctx.publicClient, e.hash)) continue;
      try {
        const how = await this.resendable(e);
        if (!how.send) {
          if (!how.fill) break;
          await ctx.fillNonce!(e.nonce);
        } else await ctx.publicClient.sendRawTransaction({ serializedTransaction: e.raw });
        resent++;
      } catch (err) {
        ctx.log.warn({ txHash: e.hash, nonce: e.nonce, err: revertReason(err) }, 'could not re-send a dropped transaction');
        break;
      }
    }
    if (resent > 0) ctx.log.warn({ resent }, 're-sent dropped relayer transactions');
    return { resent, removed: remove.length };
  }

  /**
   * A journaled transaction is re-broadcast by whoever holds the relayer (the same signed bytes:
   * the same relayer nonce and hash), but the attempts it carries may have moved on: another
   * instance took one over after its deadline and sent the same authorization in a transaction of
   * its own relayer, or its window closed and it may be taken over at any moment. Re-sending these
   * bytes then makes a second, different transaction carrying one authorization (one of the two
   * reverts, its gas lost), so it goes out again only under the rule the owner's own broadcast
   * keeps (owned-relay.ts, broadcastFence). Otherwise the relayer nonce gets a transaction that
   * moves nothing (the later nonces must not wait behind a gap); without a filler the entry is
   * dropped (start-up) or left for a later sweep.
   */
  private async resendable(e: JournalEntry): Promise<Resend> {
    const { ctx } = this;
    if (!e.owners?.length || !ctx.mayResend || (await ctx.mayResend(e))) return { send: true };
    ctx.log.warn({ txHash: e.hash, nonce: e.nonce, owners: e.owners }, 'a journaled transaction is not sent again: its attempt is owned elsewhere or its window closed');
    return { send: false, fill: ctx.fillNonce !== undefined };
  }

  /**
   * Embedded only. anvil can file a transaction at the sender's own next nonce as "queued"
   * instead of ready when it arrives while a block is being mined (a race in its pool,
   * reproduced with bare anvil and concurrent raw sends): it and every later transaction of
   * the relayer then wait for ever, and `evm_mine` does not help. The sign: the node knows our
   * transaction at nonce `mined` but does not count it as pending (`pending === mined`); a
   * chain whose mining was paused counts it. The cure: take the relayer's transactions out of
   * the pool and re-send the journaled ones in nonce order (the same signed bytes).
   */
  private async unstick(entries: JournalEntry[], mined: number, now: number): Promise<boolean> {
    const { ctx } = this;
    const next = entries.find((e) => e.nonce === mined);
    if (!next || now - Date.parse(next.createdAt) < EMBEDDED_STUCK_AFTER_MS) return false;
    if (!(await isKnownTransaction(ctx.publicClient, next.hash))) return false;
    ctx.log.warn({ txHash: next.hash, nonce: mined }, 'relayer transactions stuck in the embedded pool; re-sending them');
    // A re-send is a broadcast like the replay's: each owned entry asks its attempts first (the
    // gate reads the store), before anything leaves the pool, so a failing read takes nothing out.
    const todo: Array<{ e: JournalEntry; how: Resend }> = [];
    for (const e of entries.filter((x) => x.nonce >= mined).sort((a, b) => a.nonce - b.nonce)) todo.push({ e, how: await this.resendable(e) });
    await ctx.publicClient.request({ method: 'anvil_removePoolTransactions' as never, params: [ctx.relayerAddress] as never });
    for (const { e, how } of todo) {
      try {
        if (how.send) await ctx.publicClient.sendRawTransaction({ serializedTransaction: e.raw });
        // Taken over (or past its window): the nonce gets a transaction that moves nothing; without
        // a filler, later nonces would wait behind the gap: the ordinary re-send decides later.
        else if (how.fill) await ctx.fillNonce!(e.nonce);
        else break;
      } catch (err) {
        const message = revertReason(err);
        // Still there, or mined meanwhile: nothing to re-send for this one.
        if (/already known|known transaction|already imported|nonce too low/i.test(message)) continue;
        // The ordinary re-send of dropped entries (above) tries again on a later sweep.
        ctx.log.warn({ txHash: e.hash, nonce: e.nonce, err: message }, 'could not re-send a stuck transaction');
        break;
      }
    }
    return true;
  }

  startSweep(intervalMs: number): void {
    let running = false;
    this.timer = setInterval(() => {
      if (running) return;
      running = true;
      this.sweep()
        .catch((err: unknown) => this.ctx.log.warn({ err: revertReason(err) }, 'relay journal sweep failed'))
        .finally(() => (running = false));
    }, intervalMs);
    this.timer.unref();
  }

  /** No sweep after this (the service is closing). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }
}
