/**
 * Checkout deposit addresses (docs/settlement.md, "Deposit addresses"): keys on their own
 * BIP-44 branch (DEPOSIT_PATH, wallet-secrets.ts), derived on demand and never stored, and the log
 * scan that finds plain ERC-20 transfers into them. Moving money out of a deposit address is an
 * EIP-3009 authorization signed by its key and relayed like every other move.
 */
import { type Address, type Hex } from 'viem';
import { type Fail, type Ok } from '../lib/results.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import type { TransferAuthorization } from './authorization.js';
import { signCustodialAuthorization, type CustodialContext } from './custodial.js';
import type { LogScanContext } from './log-scan.js';
import type { CustodialTransferParams, VerifyReason } from './chain-results.js';

/** One token Transfer into a watched address, as a log names it. */
export interface TokenTransfer {
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  from: Address;
  to: Address;
  value: bigint;
}

// Topic OR-lists stay short: providers cap a filter's size.
const ADDRESSES_PER_QUERY = 100;

/**
 * Token transfers to any of `to` in blocks [fromBlock, toBlock], oldest first, in windows of
 * `logWindow` blocks. Removed (reorged) logs are left out. Throws when the RPC fails.
 */
export async function findTransfersTo(ctx: LogScanContext, to: readonly Address[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]> {
  const out: TokenTransfer[] = [];
  if (to.length === 0 || fromBlock > toBlock) return out;
  for (let i = 0; i < to.length; i += ADDRESSES_PER_QUERY) {
    const chunk = to.slice(i, i + ADDRESSES_PER_QUERY);
    for (let from = fromBlock; from <= toBlock; from += ctx.logWindow) {
      const end = from + ctx.logWindow - 1n < toBlock ? from + ctx.logWindow - 1n : toBlock;
      const logs = await ctx.publicClient.getContractEvents({
        address: ctx.tokenAddress,
        abi: stablecoinAbi,
        eventName: 'Transfer',
        args: { to: [...chunk] },
        fromBlock: from,
        toBlock: end,
      });
      for (const l of logs) {
        if (l.removed || l.transactionHash === null || l.logIndex === null || l.blockNumber === null) continue;
        const args = l.args as { from?: Address; to?: Address; value?: bigint };
        if (!args.from || !args.to || args.value === undefined) continue;
        out.push({ txHash: l.transactionHash, logIndex: l.logIndex, blockNumber: l.blockNumber, from: args.from, to: args.to, value: args.value });
      }
    }
  }
  return out.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/** An authorization from the deposit address at `params.fromIndex` (deposit branch), signed; see signCustodialAuthorization. */
export function signDepositAuthorization(
  ctx: CustodialContext,
  params: CustodialTransferParams,
): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>> {
  return signCustodialAuthorization(ctx, params);
}
