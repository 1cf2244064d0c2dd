import { parseUnits } from 'viem';
import { fail, type Result } from '../lib/results.js';
import { withCallingCode } from '../lib/phone.js';
import { tooManyDecimals } from '../lib/money.js';
import { BILLER_CURRENCY_DECIMALS, cleanAccount, type Biller } from './biller-schema.js';

/** The checks of a bill against its biller: the customer number's format and the amount's limits. */
/**
 * Checks a customer number against the biller's format. Separators are dropped; phone
 * numbers come back in E.164 (+2348031234567) so every later step sees one spelling.
 */
export function validateAccountNumber(
  biller: Biller,
  raw: string,
): Result<{ accountNumber: string }, 'invalid_account_number'> {
  let cleaned = cleanAccount(raw);
  if (biller.account.label !== 'Phone number') cleaned = cleaned.toUpperCase();
  if (!new RegExp(biller.account.pattern).test(cleaned)) {
    return fail(
      'invalid_account_number',
      `${biller.name} needs a ${biller.account.label.toLowerCase()} of ${biller.account.hint}, e.g. ${biller.account.example}.`,
      'account_number',
    );
  }
  if (biller.account.label === 'Phone number') cleaned = withCallingCode(cleaned, biller.country);
  return { ok: true, accountNumber: cleaned };
}

/** Minor units of a decimal amount in the biller's currency, inside the biller's limits. */
export function checkBillAmount(
  biller: Biller,
  amount: string,
): Result<{ amountMinor: bigint }, 'invalid_amount' | 'amount_below_minimum' | 'amount_above_maximum'> {
  const decimals = BILLER_CURRENCY_DECIMALS[biller.currency] ?? 2;
  const m = /^(\d{1,12})(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return fail('invalid_amount', `Amount must be a positive number with at most ${decimals} decimals.`, 'amount');
  if (m[2] !== undefined && m[2].replace(/0+$/, '').length > decimals) return fail('invalid_amount', tooManyDecimals(biller.currency, decimals), 'amount');
  const amountMinor = parseUnits(amount.trim(), decimals);
  if (amountMinor <= 0n) return fail('invalid_amount', 'Amount must be greater than zero.', 'amount');
  if (amountMinor < parseUnits(biller.minAmount, decimals)) {
    return fail('amount_below_minimum', `The minimum for ${biller.name} is ${biller.minAmount} ${biller.currency}.`, 'amount');
  }
  if (amountMinor > parseUnits(biller.maxAmount, decimals)) {
    return fail('amount_above_maximum', `The maximum for ${biller.name} is ${biller.maxAmount} ${biller.currency}.`, 'amount');
  }
  return { ok: true, amountMinor };
}
