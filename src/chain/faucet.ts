/**
 * The dev faucet, embedded chain only: mints test USDC (the relayer owns the token there) and
 * sends gas money, through the relayer's sender like every other transaction (so both are
 * journaled and take nonces in order).
 */
import { encodeFunctionData, parseEther, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { fail, type Result } from '../lib/results.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { revertReason } from './node-errors.js';
import type { NodeClient } from './node-reads.js';
import { FaucetReason, type ReceiptOutcome } from './chain-results.js';
import { withHeadroom, type RelayerSender, type SendError } from './relayer-sender.js';

const DEFAULT_FAUCET_GAS = parseEther('0.1');

export interface FaucetContext {
  embedded: boolean;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  tokenAddress: Address;
  sender: RelayerSender;
  waitForReceipt(txHash: Hex): Promise<ReceiptOutcome>;
}

/** See ChainService.faucet. */
export async function faucet(
  ctx: FaucetContext,
  address: Address,
  amount: bigint,
  opts: { nativeAmount?: bigint } = {},
): Promise<Result<{ mintTxHash: Hex; gasTxHash?: Hex }, FaucetReason>> {
  if (!ctx.embedded) return fail(FaucetReason.notAvailable, 'the faucet exists only on the embedded chain');
  const nativeAmount = opts.nativeAmount ?? DEFAULT_FAUCET_GAS;
  if (amount <= 0n) return fail(FaucetReason.invalidAmount, 'amount must be positive', 'amount');
  if (nativeAmount < 0n) return fail(FaucetReason.invalidAmount, 'nativeAmount must not be negative', 'nativeAmount');
  const data = encodeFunctionData({ abi: stablecoinAbi, functionName: 'mint', args: [address, amount] });
  let hashes: Hex[];
  try {
    const mintGas = await ctx.publicClient.estimateGas({ account: ctx.relayer, to: ctx.tokenAddress, data });
    hashes = await Promise.all([
      ctx.sender.send({ to: ctx.tokenAddress, data, gas: withHeadroom(mintGas) }),
      ...(nativeAmount > 0n ? [ctx.sender.send({ to: address, value: nativeAmount, gas: 21_000n })] : []),
    ]);
  } catch (e) {
    const err = e as SendError;
    return fail(FaucetReason.submitFailed, `faucet failed: ${revertReason(err.cause ?? e)}`);
  }
  const receipts = await Promise.all(hashes.map((h) => ctx.waitForReceipt(h)));
  const bad = receipts.findIndex((r) => r.status !== 'success');
  if (bad >= 0) return fail(FaucetReason.reverted, `faucet transaction ${hashes[bad]} ${receipts[bad]!.status}`);
  const [mintTxHash, gasTxHash] = hashes as [Hex, Hex | undefined];
  return gasTxHash ? { ok: true, mintTxHash, gasTxHash } : { ok: true, mintTxHash };
}
