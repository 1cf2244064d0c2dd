/**
 * The ways to pay a checkout session, one adapter file each (docs/architecture.md, "Adding a
 * payment method"). A new method is its file in this folder and one line in this list.
 *
 * The deposit address is one too: no door calls it; the deposit watcher
 * (src/settlement/deposit-watcher.ts) notices a transfer and pays the session with it.
 */
import { PaymentMethods, type PaymentMethod } from '../pay.js';
import { appWallet } from './app-wallet.js';
import { depositAddress } from './deposit-address.js';
import { signedAuthorization } from './signed-authorization.js';
import { testWallet } from './test-wallet.js';
import { x402 } from './x402.js';

export const PAYMENT_METHODS = [signedAuthorization, appWallet, testWallet, x402, depositAddress] as const;

type Shipped = (typeof PAYMENT_METHODS)[number];

/** The input of any shipped method (`{ method: name, ... }`). */
export type PayInput = Shipped extends infer M ? (M extends PaymentMethod<infer I, string> ? I : never) : never;

/** The named refusals of the method `N` (besides settlement's own reasons). */
export type RefusalOf<N extends string> = Extract<Shipped, { name: N }> extends PaymentMethod<infer _I, infer R> ? R : never;

export function shippedMethods(): PaymentMethods {
  return new PaymentMethods(PAYMENT_METHODS);
}
