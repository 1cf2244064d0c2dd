/**
 * Dev-only "Pay with a test wallet": a throwaway key, funded from the embedded chain's faucet
 * with exactly the amount due (and no gas money: the relayer pays), signs the payment's
 * authorization and settles it through the same path a browser wallet uses.
 *
 * Signing happens here rather than in the browser because the page has no bundler to ship
 * viem with; the key never leaves this function.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChainService } from '../chain/chain.js';
import { TransferAuthorization } from '../chain/authorization.js';
import { fail } from '../lib/results.js';
import { SettleReason, type SettleResult, type SettlementService } from './settlement.js';

export async function payWithTestWallet(
  chain: ChainService,
  settlement: SettlementService,
  paymentId: string,
): Promise<SettleResult> {
  const account = privateKeyToAccount(generatePrivateKey());
  const issued = await settlement.authorizationFor(paymentId, account.address);
  if (!issued.ok) return issued;
  const authorization = TransferAuthorization.parse(issued.typedData.message);
  const funded = await chain.faucet(account.address, authorization.value, { nativeAmount: 0n });
  if (!funded.ok) return fail(SettleReason.submitFailed, `The test wallet could not be funded: ${funded.message}`);
  const signature = await account.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData);
  return settlement.settle(paymentId, { authorization, signature });
}
