/**
 * Contract calls from the relayer other than token transfers: the auth-capture operator's escrow
 * calls (authorize, capture, void). Simulated against the latest state first (a revert comes back
 * with its data, for the caller to decode), then sent through the relayer's sender (its nonce and
 * the relay journal, like every other send). The domain sends one only through `relayOnce`
 * (relay.ts, a `contract-call` move), which classifies the outcome as for a transfer.
 */
import { BaseError, type Hex, type PrivateKeyAccount } from 'viem';
import type { RelayerCallFailure, RelayerCallPort } from './chain.js';
import { isRefusal, revertReason } from './node-errors.js';
import type { NodeClient } from './node-reads.js';
import { withHeadroom, type RelayerSender, type SendError } from './relayer-sender.js';

function revertData(e: unknown): Hex | undefined {
  if (!(e instanceof BaseError)) return undefined;
  const found = e.walk((x) => typeof (x as { data?: unknown }).data === 'string' && /^0x[0-9a-fA-F]*$/.test((x as { data: string }).data));
  const data = (found as { data?: Hex } | null)?.data;
  return data && data.length >= 10 ? data : undefined;
}

function failure(e: unknown): RelayerCallFailure {
  const data = revertData(e);
  const message = revertReason(e);
  if (data || /revert/i.test(message)) return { ok: false, reason: 'reverted', message, ...(data ? { data } : {}) };
  return { ok: false, reason: 'unavailable', message };
}

export function relayerCalls(p: { publicClient: NodeClient; relayer: PrivateKeyAccount }, sender: RelayerSender): RelayerCallPort {
  const estimate = (call: { to: `0x${string}`; data: Hex }) => p.publicClient.estimateGas({ account: p.relayer.address, to: call.to, data: call.data });
  return {
    async simulate(call) {
      try {
        await estimate(call);
        return { ok: true };
      } catch (e) {
        return failure(e);
      }
    },
    async send(call) {
      let gas: bigint;
      try {
        gas = await estimate(call);
      } catch (e) {
        return failure(e);
      }
      try {
        return { ok: true, txHash: await sender.send({ ...call, gas: withHeadroom(gas) }) };
      } catch (e) {
        const err = e as SendError;
        // Sent with an unknown outcome: the hash is the one to wait on.
        if (err.txHash && !err.refused && !isRefusal(err.cause)) return { ok: true, txHash: err.txHash };
        return failure(err.cause ?? err);
      }
    },
    signTypedData: (typed) => p.relayer.signTypedData(typed as never),
  };
}
