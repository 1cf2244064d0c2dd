/**
 * Dev-only "Pay with a test wallet" (`POST /api/dev/checkout/:id/test-wallet-pay`): a throwaway
 * key, funded from the embedded chain's faucet with exactly the amount due (no gas money: the
 * relayer pays), signs the authorization this payment issues.
 *
 * Signing happens here rather than in the browser because the page has no bundler to ship viem
 * with; the key never leaves this function.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TransferAuthorization } from '../../chain/authorization.js';
import { fail } from '../../lib/results.js';
import { SettleReason } from '../../settlement/settlement.js';
import type { PaymentMethod } from '../pay.js';

export interface TestWalletInput {
  method: 'test-wallet';
}

export const testWallet: PaymentMethod<TestWalletInput> = {
  name: 'test-wallet',
  async authorize({ chain, settlement, payment }) {
    const account = privateKeyToAccount(generatePrivateKey());
    const issued = await settlement.authorizationFor(payment.id, account.address);
    if (!issued.ok) return issued;
    const authorization = TransferAuthorization.parse(issued.typedData.message);
    const funded = await chain.faucet(account.address, authorization.value, { nativeAmount: 0n });
    if (!funded.ok) return fail(SettleReason.submitFailed, `The test wallet could not be funded: ${funded.message}`);
    const signature = await account.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData);
    return { ok: true, request: { authorization, signature } };
  },
};
