/**
 * Finding the transaction that used an authorization, from its AuthorizationUsed log: for
 * reconciliation after a crash or an ambiguous `submit_failed`. Many RPC providers refuse
 * eth_getLogs over wide ranges, so a scan goes backwards in bounded windows down to a floor.
 */
import { parseEventLogs, type Address, type Hex } from 'viem';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import type { LatestBlock, NodeClient } from './node-reads.js';
import type { FindAuthorizationOptions } from './chain-results.js';

// Block timestamps and our clock can disagree; a time-derived scan floor starts this much earlier.
const SCAN_CLOCK_SKEW_SECONDS = 600n;

export interface LogScanContext {
  publicClient: NodeClient;
  tokenAddress: Address;
  /** Block the token was deployed at, when known: no scan goes below it. */
  deployBlock: bigint | undefined;
  /** The most blocks one eth_getLogs request covers. */
  logWindow: bigint;
  /** How far back a scan without a better floor goes. */
  maxLookback: bigint;
}

/** See ChainService.findAuthorizationTx. */
export async function findAuthorizationTx(
  ctx: LogScanContext,
  authorizer: Address,
  nonce: Hex,
  opts: bigint | FindAuthorizationOptions = {},
): Promise<Hex | undefined> {
  const o: FindAuthorizationOptions = typeof opts === 'bigint' ? { fromBlock: opts } : opts;
  if (o.txHash && (await usedAuthorizationIn(ctx, o.txHash, authorizer, nonce))) return o.txHash;

  const latest = await ctx.publicClient.getBlock({ blockTag: 'latest' });
  const floor = o.fromBlock ?? (await scanFloor(ctx, latest, o.since));
  // Newest first, one bounded window per request: providers refuse (or time out on) wide
  // eth_getLogs ranges, and a recent authorization is found after the first window or two.
  const window = ctx.logWindow;
  for (let to = latest.number; to >= floor; ) {
    const from = to - window + 1n > floor ? to - window + 1n : floor;
    const logs = await ctx.publicClient.getContractEvents({
      address: ctx.tokenAddress,
      abi: stablecoinAbi,
      eventName: 'AuthorizationUsed',
      args: { authorizer, nonce },
      fromBlock: from,
      toBlock: to,
    });
    const hit = logs.find((l) => !l.removed)?.transactionHash;
    if (hit) return hit;
    if (from === 0n || from === floor) break;
    to = from - 1n;
  }
  return undefined;
}

/** True when `txHash` is mined, succeeded and emitted AuthorizationUsed(authorizer, nonce). */
async function usedAuthorizationIn(ctx: LogScanContext, txHash: Hex, authorizer: Address, nonce: Hex): Promise<boolean> {
  const receipt = await ctx.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
  if (!receipt || receipt.status !== 'success') return false;
  const events = parseEventLogs({ abi: stablecoinAbi, eventName: 'AuthorizationUsed', logs: receipt.logs });
  return events.some(
    (ev) =>
      ev.address.toLowerCase() === ctx.tokenAddress.toLowerCase() &&
      ev.args.authorizer.toLowerCase() === authorizer.toLowerCase() &&
      ev.args.nonce.toLowerCase() === nonce.toLowerCase(),
  );
}

/** Lowest block a scan needs: the deploy block, the block at `since` (less clock skew), the max lookback. */
async function scanFloor(ctx: LogScanContext, latest: LatestBlock, since: Date | string | undefined): Promise<bigint> {
  const lookback = latest.number > ctx.maxLookback ? latest.number - ctx.maxLookback : 0n;
  let floor = ctx.deployBlock !== undefined && ctx.deployBlock > lookback ? ctx.deployBlock : lookback;
  if (since !== undefined) {
    const ms = (since instanceof Date ? since : new Date(since)).getTime();
    if (Number.isFinite(ms)) {
      const atTime = await blockAtOrBefore(ctx, BigInt(Math.floor(ms / 1000)) - SCAN_CLOCK_SKEW_SECONDS, latest, floor);
      if (atTime > floor) floor = atTime;
    }
  }
  return floor;
}

/**
 * A block whose timestamp is at or before `ts` (not below `min`): estimated from the recent
 * block rate, then stepped back (doubling) until a block is no later than `ts`. A few calls,
 * instead of a binary search over the whole chain.
 */
async function blockAtOrBefore(ctx: LogScanContext, ts: bigint, latest: LatestBlock, min: bigint): Promise<bigint> {
  if (latest.timestamp <= ts) return latest.number;
  const sampleNumber = latest.number > ctx.logWindow ? latest.number - ctx.logWindow : 0n;
  const sample = await ctx.publicClient.getBlock({ blockNumber: sampleNumber });
  const spanBlocks = latest.number - sampleNumber;
  const spanSeconds = latest.timestamp - sample.timestamp;
  let back = spanSeconds > 0n ? ((latest.timestamp - ts) * spanBlocks) / spanSeconds : spanBlocks;
  let step = back / 10n > 100n ? back / 10n : 100n;
  for (let i = 0; i < 24; i++) {
    const n = latest.number > back ? latest.number - back : 0n;
    if (n <= min) return min;
    const block = await ctx.publicClient.getBlock({ blockNumber: n });
    if (block.timestamp <= ts) return n;
    back += step;
    step *= 2n;
  }
  return min;
}
