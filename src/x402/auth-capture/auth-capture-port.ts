/** The scheme's port on the real chain service (undefined when the chain has no escrow). */
import type { ChainService } from '../../chain/chain.js';
import { authCaptureEscrowAbi } from '../../chain/artifacts/auth-capture.js';
import type { AuthCapturePort } from './scheme.js';

export function authCapturePort(chain: ChainService): AuthCapturePort | undefined {
  const d = chain.authCapture;
  const call = chain.relayerCall;
  if (!d || !call) return undefined;
  return {
    chainId: chain.chainId,
    tokenAddress: chain.tokenAddress,
    eip712Domain: chain.eip712Domain,
    operator: chain.relayerAddress,
    escrow: d.escrow,
    eip3009Collector: d.eip3009Collector,
    operatorRefundCollector: d.operatorRefundCollector,
    call,
    verifyTypedData: (address, typed, signature) => chain.publicClient.verifyTypedData({ address, ...(typed as object), signature } as never).catch(() => false),
    balanceOf: (a) => chain.balanceOf(a),
    async paymentState(hash) {
      const [collected, capturable, refundable] = (await chain.publicClient.readContract({ address: d.escrow, abi: authCaptureEscrowAbi, functionName: 'paymentState', args: [hash] })) as readonly [boolean, bigint, bigint];
      return { collected, capturable, refundable };
    },
    waitForReceipt: (h, t) => chain.waitForReceipt(h, t),
  };
}
