/**
 * What the service reads from the node, shared by the other chain modules: token balances and
 * authorization state, whether a transaction is known, the latest block (briefly shared), chain
 * time, and the receipt watcher's view of the node.
 */
import { BaseError, isAddress, TransactionNotFoundError, TransactionReceiptNotFoundError, toHex, type Account, type Address, type Chain, type Hex, type HttpTransport, type PublicClient } from 'viem';
import { getCallError, getEstimateGasError } from 'viem/utils';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import type { ReceiptSource } from './receipts.js';
import { usedAuthorizations } from './relay-batches.js';

export type NodeClient = PublicClient<HttpTransport, Chain>;

export interface LatestBlock {
  number: bigint;
  timestamp: bigint;
}

// How long a relay waits for a lagging network to reach an authorization's validAfter.
const CHAIN_CATCH_UP_SECONDS = 30;

export function wallSeconds(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

const BALANCE_OF_SELECTOR = '0x70a08231'; // balanceOf(address)
const WORD = /^0x[0-9a-fA-F]{64}$/;

/**
 * The token balance by one `eth_call` of `balanceOf(address)` written directly, as viem's
 * `readContract` would send it, without its per-call encoding, decoding and formatting (every
 * agent transfer reads its wallet's balance; issue 23, tenth round). Anything unusual (a chain
 * with its own formatters, an answer that is not one word) goes to `readContract`, which
 * answers or throws as before.
 */
export async function balanceOf(client: NodeClient, tokenAddress: Address, address: Address): Promise<bigint> {
  const viaViem = () => client.readContract({ address: tokenAddress, abi: stablecoinAbi, functionName: 'balanceOf', args: [address] });
  if (client.chain?.formatters?.transactionRequest || !isAddress(address)) return viaViem(); // viem's own check (checksum of a mixed-case address), cached by viem
  const data = `${BALANCE_OF_SELECTOR}${'0'.repeat(24)}${address.slice(2).toLowerCase()}` as Hex;
  const out: unknown = await client.request({ method: 'eth_call', params: [{ to: tokenAddress, data }, 'latest'] });
  return typeof out === 'string' && WORD.test(out) ? BigInt(out) : viaViem();
}

/** EIP-3009: true once the (authorizer, nonce) pair was used or canceled. */
export function authorizationState(client: NodeClient, tokenAddress: Address, authorizer: Address, nonce: Hex): Promise<boolean> {
  return client.readContract({ address: tokenAddress, abi: stablecoinAbi, functionName: 'authorizationState', args: [authorizer, nonce] });
}

/**
 * `client.estimateGas({ account, to, data, prepare: false })`: the same one `eth_estimateGas`
 * (same parameters) and, on failure, the same error (viem's `getEstimateGasError` over what the
 * node answered), without the action's per-call work (request assertions with checksummed
 * address checks, parsing and formatting: about 0.35 ms per settle, issue 23 seventh round). A
 * chain with its own request formatter goes through viem's action.
 */
export async function estimateCallGas(client: NodeClient, account: Account, to: Address, data: Hex): Promise<bigint> {
  if (client.chain?.formatters?.transactionRequest) return client.estimateGas({ account, to, data, prepare: false });
  try {
    return BigInt(await client.request({ method: 'eth_estimateGas', params: [{ data, from: account.address, to }] }));
  } catch (err) {
    throw getEstimateGasError(err as BaseError, { account, to, data, prepare: false, chain: client.chain });
  }
}

/**
 * The simulation of a call whose gas has a known upper bound: one `eth_call` of `data` from
 * `account` at gas limit `gas` against the latest block (the state `eth_estimateGas` runs
 * against), which the node executes once, where the estimate executes it several times (its
 * binary search; on anvil 2.4-2.9 ms of the node's CPU for an agent transfer's pair against
 * 0.26-0.40 ms for the call, issue 23 eleventh round). True when it passed; false when it ran
 * out of gas at `gas` (the bound did not hold: the caller estimates instead). A revert throws the
 * error viem's `call` would (`getCallError`): the same revert reason as the estimate's.
 */
export async function callWithinGas(client: NodeClient, account: Account, to: Address, data: Hex, gas: bigint): Promise<boolean> {
  try {
    if (client.chain?.formatters?.transactionRequest) await client.call({ account, to, data, gas });
    else await client.request({ method: 'eth_call', params: [{ data, from: account.address, to, gas: toHex(gas) }, 'latest'] });
    return true;
  } catch (err) {
    const e = client.chain?.formatters?.transactionRequest ? (err as BaseError) : getCallError(err as BaseError, { account, to, data, gas, chain: client.chain });
    if (e instanceof BaseError && OUT_OF_GAS.test(`${e.shortMessage} ${e.details ?? ''}`)) return false;
    throw e;
  }
}
const OUT_OF_GAS = /out ?of ?gas|gas required exceeds/i;

/** True when the node knows the transaction. Only "not found" counts as unknown; an RPC failure throws, so it never looks like a gap. */
export async function transactionKnown(client: NodeClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (e) {
    if (e instanceof TransactionNotFoundError) return false;
    throw e;
  }
}

/** Like transactionKnown, but any failure answers false (for best-effort checks). */
export async function isKnownTransaction(client: NodeClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch {
    return false;
  }
}

/** The latest block, shared by calls within one polling interval (one block on anvil at most). */
export class LatestBlockCache {
  private cache: { at: number; block: Promise<LatestBlock> } | undefined;
  /** The last block read, and when (Date.now()): what `recent` answers without a round trip. */
  private last: { at: number; block: LatestBlock } | undefined;

  constructor(
    private readonly client: NodeClient,
    private readonly pollMs: number,
  ) {}

  get(): Promise<LatestBlock> {
    const now = Date.now();
    if (this.cache && now - this.cache.at < this.pollMs) return this.cache.block;
    const block = this.client.getBlock({ blockTag: 'latest' }).then((b) => {
      const read = { number: b.number, timestamp: b.timestamp };
      if (!this.last || this.last.at <= now) this.last = { at: now, block: read };
      return read;
    });
    this.cache = { at: now, block };
    block.catch(() => {
      if (this.cache?.block === block) this.cache = undefined;
    });
    return block;
  }

  /**
   * A block read at most `maxAgeMs` ago, with its age in whole seconds (rounded up), or a fresh
   * read. Chain time never runs backwards, so an older block is still a lower bound of every
   * block to come; the caller adds the age for an estimate of chain time now.
   */
  recent(maxAgeMs: number): Promise<{ block: LatestBlock; ageSeconds: bigint }> {
    const now = Date.now();
    const last = this.last;
    if (last && now - last.at < maxAgeMs) return Promise.resolve({ block: last.block, ageSeconds: BigInt(Math.ceil(Math.max(0, now - last.at) / 1000)) });
    return this.get().then((block) => ({ block, ageSeconds: 0n }));
  }
}

/** Chain time in seconds: the latest block's timestamp, never behind the wall clock. */
export async function chainTime(client: NodeClient): Promise<bigint> {
  const block = await client.getBlock({ blockTag: 'latest' });
  const wall = wallSeconds();
  return block.timestamp > wall ? block.timestamp : wall;
}

/**
 * Makes the latest block's timestamp pass `t` (at most `CHAIN_CATCH_UP_SECONDS` ahead): the
 * embedded chain mines an empty block at the current time; a real network is waited for.
 */
export async function chainTimePast(client: NodeClient, embedded: boolean, t: bigint): Promise<boolean> {
  const deadline = Date.now() + CHAIN_CATCH_UP_SECONDS * 1000;
  for (;;) {
    const latest = await client.getBlock({ blockTag: 'latest' });
    if (latest.timestamp > t) return true;
    if (embedded) {
      const wall = wallSeconds();
      const at = wall > t ? wall : t + 1n;
      await client.request({ method: 'evm_mine' as never, params: [toHex(at)] as never });
      continue;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The receipt watcher's view of the node. */
export function receiptSource(client: NodeClient, token: Address): ReceiptSource {
  type RawLog = { address: string; topics: string[] };
  const summary = (r: { status: string; blockNumber: string; gasUsed: string; logs?: RawLog[] }) => ({
    status: r.status === '0x1' ? ('success' as const) : ('reverted' as const),
    blockNumber: BigInt(r.blockNumber),
    gasUsed: BigInt(r.gasUsed),
    used: usedAuthorizations(r.logs ?? [], token),
  });
  return {
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockReceipts(block) {
      try {
        const raw = (await client.request({ method: 'eth_getBlockReceipts' as never, params: [toHex(block)] as never })) as
          | Array<{ transactionHash: Hex; status: string; blockNumber: string; gasUsed: string; logs?: RawLog[] }>
          | null;
        // null: the node has no such block (yet); the watcher reads it again instead of skipping it.
        return raw === null ? null : raw.map((r) => ({ ...summary(r), transactionHash: r.transactionHash }));
      } catch (e) {
        if (e instanceof BaseError && /method not found|not supported|does not exist|unsupported/i.test(`${e.shortMessage} ${e.details ?? ''}`)) {
          return undefined;
        }
        throw e;
      }
    },
    async receipt(hash) {
      try {
        const r = await client.getTransactionReceipt({ hash });
        return { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed, used: usedAuthorizations(r.logs, token) };
      } catch (e) {
        if (e instanceof TransactionReceiptNotFoundError) return undefined;
        throw e;
      }
    },
  };
}
