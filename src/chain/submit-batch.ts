/**
 * The encoding of several EIP-3009 transfer authorizations in one transaction, all or none,
 * through the token's `transferWithAuthorizations` (contracts/Stablecoin.sol; USDC has no such function).
 * An agent transfer and its fee are one on-chain move this way (issue 23, point 3).
 *
 * Each authorization is an ordinary TransferWithAuthorization with its own nonce, so a
 * batch is found on chain exactly as a single move is (the AuthorizationUsed log of any of its
 * nonces), and a resend of the same batch can never pay twice: the token refuses a used nonce,
 * and one refused authorization reverts the whole batch.
 *
 * Only the service's own custodial signatures are batched, so there is no separate verification
 * step: the simulation executes the batch against the latest state (the one check), and a
 * revert maps to the same reasons as a single authorization's. Sending is submit.ts's, the same
 * path as a single authorization. On the embedded chain, whose token is our own Stablecoin,
 * the simulation is one `eth_call` at OWN_BATCH_GAS_BOUND rather than `eth_estimateGas` (issue
 * 23, eleventh round); elsewhere the estimate.
 */
import { encodeFunctionData, prepareEncodeFunctionData, type Address, type Hex } from 'viem';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { isRevert } from './node-errors.js';
import type { NodeClient } from './node-reads.js';
import type { SignedAuthorization } from './chain-port.js';

export type { SignedAuthorization };

/**
 * Gas one authorization of `transferWithAuthorizations` may use at most on our own token
 * (contracts/Stablecoin.sol) from an EOA signer: measured 61.8k per authorization for a pair
 * whose two recipients, the fee wallet included, had never held the token, with fresh nonces and
 * a payer left holding some (144,524 gas for the pair, 202,166 for three; the payer emptied:
 * 139,688). The bound leaves about 30 % over that worst case; test/chain/own-batch-gas.test.ts
 * proves it on anvil by sending such pairs with exactly this limit. A contract signer (ERC-1271,
 * unbounded) would run out of gas at the bound, and the submit then estimates instead.
 */
export const OWN_AUTHORIZATION_GAS = 80_000n;
const TX_BASE_GAS = 21_000n;

/** The gas limit a batch of `n` of our own authorizations is simulated and sent with on our own token. */
export function ownBatchGasBound(n: number): bigint {
  return TX_BASE_GAS + BigInt(n) * OWN_AUTHORIZATION_GAS;
}

/**
 * `transferWithAuthorizations` looked up in the ABI and its selector hashed once, at load: viem's
 * `encodeFunctionData` by name does both on every call (getAbiItem over the whole ABI, the
 * signature's formatting and keccak), which the CPU profile of an agent turn showed costing more
 * than the encoding itself (docs/performance.md, "Twelfth round").
 */
const TRANSFER_WITH_AUTHORIZATIONS = prepareEncodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorizations' });

/** The calldata of `transferWithAuthorizations(items)` (packed signatures, EOA or ERC-1271 alike). */
export function encodeBatch(items: readonly SignedAuthorization[]): Hex {
  return encodeFunctionData({
    ...TRANSFER_WITH_AUTHORIZATIONS,
    args: [
      items.map(({ auth, signature }) => ({
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce: auth.nonce,
        signature,
      })),
    ],
  });
}

/**
 * True when the token at `tokenAddress` has `transferWithAuthorizations`: an empty batch
 * executes (and moves nothing); a token without it (USDC, or a stablecoin deployed before the
 * function existed) reverts. Throws when the node cannot be asked.
 */
export async function supportsBatchTransfers(client: NodeClient, tokenAddress: Address, caller: Address): Promise<boolean> {
  try {
    await client.call({ account: caller, to: tokenAddress, data: encodeBatch([]) });
    return true;
  } catch (e) {
    if (isRevert(e)) return false;
    throw e;
  }
}
