import { getAddress, type Address } from 'viem';
import type { Account, AccountsService } from '../accounts/accounts.js';
import { fail, type Result } from '../lib/results.js';
import type { WalletDirectory } from '../wallet/directory.js';
import { toE164 } from '../lib/phone.js';
import { readEvmAddress } from '../lib/evm-address.js';

/** Who a transfer goes to: one of our accounts, or an outside 0x address (a payout). */
export type Recipient =
  | { kind: 'account'; account: Account; address: Address; label: string }
  | { kind: 'external'; address: Address; label: string };

export const RecipientReason = {
  unknownRecipient: 'unknown_recipient',
  invalidRecipient: 'invalid_recipient',
  selfTransfer: 'self_transfer',
} as const;
export type RecipientFailure = (typeof RecipientReason)[keyof typeof RecipientReason];

const USERNAME = /^[A-Za-z][A-Za-z0-9_]{3,31}$/;

export interface RecipientDeps {
  accounts: Pick<AccountsService, 'get' | 'findBy'>;
  wallets: WalletDirectory;
}

/**
 * Resolves what the sender typed: `@username` (Telegram), E.164 phone (a national number
 * is completed with the sender's country code when known), email, `acct_...`, or a `0x`
 * address (an address that is no account's wallet is an external payout).
 */
export async function resolveRecipient(
  deps: RecipientDeps,
  sender: Account,
  raw: string,
): Promise<Result<{ recipient: Recipient }, RecipientFailure>> {
  const text = raw.trim();
  const found = await lookup(deps, sender, text);
  if (!found.ok) return found;
  const r = found.recipient;
  const senderAddress = deps.wallets.addressOf(sender);
  if ((r.kind === 'account' && r.account.id === sender.id) || r.address.toLowerCase() === senderAddress.toLowerCase()) {
    return fail(RecipientReason.selfTransfer, 'You cannot send money to yourself.', 'recipient');
  }
  return found;
}

/**
 * Every identifier of the person or address `raw` names (handle, phone, email, address), so a
 * spend policy's allow and block lists match however the recipient was written.
 */
export async function recipientIdentities(deps: RecipientDeps, senderId: string, raw: string): Promise<string[]> {
  const sender = await deps.accounts.get(senderId);
  if (!sender) return [];
  const found = await lookup(deps, sender, raw.trim());
  if (!found.ok) return [];
  const r = found.recipient;
  if (r.kind === 'external') return [r.address];
  const a = r.account;
  return [r.address, ...(a.telegramUsername ? [`@${a.telegramUsername}`] : []), ...(a.phone ? [a.phone] : []), ...(a.email ? [a.email] : [])];
}

async function lookup(
  deps: RecipientDeps,
  sender: Account,
  text: string,
): Promise<Result<{ recipient: Recipient }, RecipientFailure>> {
  const unknown = () =>
    fail(RecipientReason.unknownRecipient, `I couldn't find anyone called ${text} on the service.`, 'recipient');
  const asAccount = (account: Account | undefined, label: string): Result<{ recipient: Recipient }, RecipientFailure> =>
    account
      ? { ok: true, recipient: { kind: 'account', account, address: deps.wallets.addressOf(account), label } }
      : unknown();

  if (/^0x/i.test(text)) {
    const reading = readEvmAddress(text);
    if (reading === 'malformed') {
      return fail(RecipientReason.invalidRecipient, `${text} is not a valid 0x address.`, 'recipient');
    }
    if (reading === 'bad_checksum') {
      return fail(
        RecipientReason.invalidRecipient,
        `${text} does not match its checksum (the mix of upper and lower case), so a character is likely mistyped. Nothing was sent; copy the address again exactly, or write it all in lower case.`,
        'recipient',
      );
    }
    const address = getAddress(text);
    const accountId = await deps.wallets.accountIdFor(address);
    const account = accountId ? await deps.accounts.get(accountId) : undefined;
    if (account) return asAccount(account, account.name);
    return { ok: true, recipient: { kind: 'external', address, label: shortAddress(address) } };
  }
  if (/^acct_[A-Za-z0-9]+$/.test(text)) return asAccount(await deps.accounts.get(text), text);

  if (text.startsWith('@') || USERNAME.test(text)) {
    const name = text.replace(/^@/, '');
    if (!USERNAME.test(name)) {
      return fail(RecipientReason.invalidRecipient, `${text} is not a valid Telegram username.`, 'recipient');
    }
    const account =
      (await deps.accounts.findBy({ telegramUsername: name })) ??
      (await deps.accounts.findBy({ telegramUsername: name.toLowerCase() }));
    return asAccount(account, `@${name}`);
  }

  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) {
    return asAccount(await deps.accounts.findBy({ email: text.toLowerCase() }), text.toLowerCase());
  }

  const phone = toE164(text, sender.country);
  if (phone) return asAccount(await deps.accounts.findBy({ phone }), phone);

  return fail(
    RecipientReason.invalidRecipient,
    `I can't tell who "${text}" is. Use a @username, a phone number like +254712345678, an email or a 0x address.`,
    'recipient',
  );
}

export function shortAddress(a: Address): string {
  return `${a.slice(0, 6)}…${a.slice(-4)}`;
}
