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
 * step: the gas estimate executes the batch against the latest state (the one simulation), and a
 * revert maps to the same reasons as a single authorization's. Sending is submit.ts's, the same
 * path as a single authorization.
 */
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { isRevert } from './node-errors.js';
import type { NodeClient } from './node-reads.js';
import type { SignedAuthorization } from './chain-port.js';

export type { SignedAuthorization };

/** The calldata of `transferWithAuthorizations(items)` (packed signatures, EOA or ERC-1271 alike). */
export function encodeBatch(items: readonly SignedAuthorization[]): Hex {
  return encodeFunctionData({
    abi: stablecoinAbi,
    functionName: 'transferWithAuthorizations',
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
