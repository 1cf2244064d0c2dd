/** Reading what a node said: revert strings, refusals, nonce clashes (pure functions). */
import { BaseError, ContractFunctionRevertedError, HttpRequestError, RpcRequestError, http } from 'viem';
import { VerifyReason } from './chain-results.js';

/** The revert string of a failed call/simulation, when the node returned one. */
export function revertReason(e: unknown): string {
  if (e instanceof BaseError) {
    const reverted = e.walk((x) => x instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.shortMessage;
    return e.details && !e.shortMessage.includes(e.details) ? `${e.shortMessage} (${e.details})` : e.shortMessage;
  }
  return e instanceof Error ? e.message : String(e);
}

/** Maps USDC's revert strings to our reasons, so the simulation is the final word when reads race. */
export function reasonFromRevert(message: string): VerifyReason {
  if (/authorization is used or canceled/i.test(message)) return VerifyReason.authorizationUsed;
  if (/authorization is not yet valid/i.test(message)) return VerifyReason.notYetValid;
  if (/authorization is expired/i.test(message)) return VerifyReason.expired;
  if (/invalid signature/i.test(message)) return VerifyReason.invalidSignature;
  if (/exceeds balance/i.test(message)) return VerifyReason.insufficientBalance;
  return VerifyReason.simulationFailed;
}

/** True when the node executed the call and it reverted (as opposed to an RPC/network failure). */
export function isRevert(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  if (e.walk((x) => x instanceof ContractFunctionRevertedError)) return true;
  return /revert|execution reverted/i.test(`${e.shortMessage} ${e.details ?? ''}`);
}

/**
 * True when a failed send certainly did not reach the node: it answered with a JSON-RPC error
 * (a rejection), or the connection was never made. A timeout, a reset after sending or a 5xx
 * from a gateway leaves the outcome unknown: the transaction may be in the pool.
 */
export function isRefusal(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  const rpc = e.walk((x) => x instanceof RpcRequestError);
  if (rpc instanceof RpcRequestError) return rpc.status === undefined || rpc.status < 500;
  const http = e.walk((x) => x instanceof HttpRequestError);
  if (http instanceof HttpRequestError && http.status === undefined) {
    for (let c: unknown = http.cause; c instanceof Error; c = c.cause) {
      const code = (c as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
    }
  }
  return false;
}

const NONCE_ERROR = /nonce too low|nonce too high|invalid nonce|nonce has already been used|replacement transaction underpriced|already known|known transaction/i;
export function isNonceError(e: unknown): boolean {
  const text = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ''} ${e.message}` : String(e);
  return NONCE_ERROR.test(text);
}
