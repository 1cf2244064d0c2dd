/**
 * The name a payment shows its payer (checkout page and view, settle answer, x402 description,
 * discovery listing): the one given at creation (`merchant_name`), else the account's, else
 * "Merchant" for an account gone since.
 */
export function merchantNameFor(payment: { merchantName?: string | undefined }, account: { name: string } | undefined): string {
  return payment.merchantName ?? account?.name ?? 'Merchant';
}

/** The same, reading the account only when the payment carries no name of its own. */
export async function merchantNameOf(
  payment: { merchantName?: string | undefined; accountId: string },
  accounts: { get(id: string): Promise<{ name: string } | undefined> },
): Promise<string> {
  return payment.merchantName ?? merchantNameFor(payment, await accounts.get(payment.accountId));
}
