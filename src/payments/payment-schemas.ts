import { z } from 'zod';
import { PageLimit, startingAfter } from '../lib/paging.js';
import { readEvmAddress } from '../lib/evm-address.js';

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048, 'must be at most 2048 characters');

const MetadataValue = z.union([z.string().max(500, 'metadata values must be at most 500 characters'), z.number(), z.boolean()], {
  error: 'metadata values must be strings, numbers or booleans',
});

// JSON.parse keeps these as own keys, but copying them into a plain object re-targets the
// prototype instead: the value would vanish unvalidated. Refuse them by name.
const RESERVED_METADATA_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function refuseReservedKeys(value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of Object.keys(value)) {
      if (RESERVED_METADATA_KEYS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: `metadata key "${key}" is reserved; use another name` });
    }
  }
  return value;
}

const MetadataRecord = z
  .record(z.string().min(1, 'metadata keys must be 1-40 characters').max(40, 'metadata keys must be at most 40 characters'), MetadataValue)
  .refine((m) => Object.keys(m).length <= 50, 'metadata can have at most 50 keys')
  // The refine above is code; tell the OpenAPI document the same limit.
  .meta({ maxProperties: 50, description: 'Up to 50 keys of at most 40 characters; values are strings (at most 500 characters), numbers or booleans. Echoed on reads and in webhook events. The keys `__proto__`, `constructor` and `prototype` are refused.' });
export const Metadata = z.preprocess(refuseReservedKeys, MetadataRecord);
export type Metadata = z.infer<typeof Metadata>;

/**
 * DESIGN.md 10: `canceled` (a pending session called off by the merchant) and `refunded` (every
 * settled unit given back) are additive; a partial refund reads as `settled` with a non-zero
 * `amount_refunded`.
 */
export const PAYMENT_STATUSES = ['pending', 'processing', 'settled', 'failed', 'expired', 'canceled', 'refunded', 'authorized', 'captured', 'voided'] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** An amount in a payment's currency, as the API takes it (create, refund, capture): one rule, one set of messages. */
export const MoneyAmount = z
  .number({ message: 'amount must be a number' })
  .positive('amount must be positive')
  .max(1_000_000_000, 'amount must be at most 1,000,000,000');

/** Interface 4.1; `expires_in_minutes` is the session-lifetime field DESIGN.md 4 names. */
export const CreatePaymentInput = z
  .object({
    amount: MoneyAmount.describe('Amount to charge, in `currency`; no more decimals than the currency has (USD 2, UGX 0).'),
    currency: z
      .string({ message: 'currency must be a string' })
      .min(2, 'currency must be 2-8 characters')
      .max(8, 'currency must be 2-8 characters')
      .transform((s) => s.toUpperCase())
      .describe('Currency code, case-insensitive (USD, EUR, NGN, KES, USDC, ...).'),
    redirect_url: HttpUrl.describe('Where the customer is sent when finished, with payment_id and status in the query.'),
    reference: z
      .string()
      .min(1, 'reference must be 1-64 characters')
      .max(64, 'reference must be at most 64 characters')
      .optional()
      .describe('Your own id for the payment, unique per account: used to reconcile and dedupe.'),
    merchant_name: z
      .string()
      .max(80, 'merchant_name must be at most 80 characters')
      // A blank name is no name: the checkout page then shows the account's name, not "Pay ".
      .transform((s) => (s.trim() === '' ? undefined : s))
      .optional(),
    description: z.string().max(300, 'description must be at most 300 characters').optional(),
    payout_address: z
      .string({ message: 'payout_address must be a 0x EVM address' })
      .refine((s) => readEvmAddress(s) !== 'malformed', 'payout_address must be a 0x EVM address')
      .refine(
        (s) => readEvmAddress(s) !== 'bad_checksum',
        'payout_address must be a 0x EVM address; its mixed upper and lower case does not match the EIP-55 checksum, so a character is likely mistyped (send it exactly as your wallet shows it, or all in lower case)',
      )
      // The token refuses transfers to the zero address, so such a payment could never settle.
      .refine((s) => !/^0x0{40}$/.test(s), 'payout_address must be a 0x EVM address, not the zero address')
      .meta({ pattern: '^0x[0-9a-fA-F]{40}$' })
      .optional()
      .describe('0x EVM address to settle this payment to.'),
    metadata: Metadata.optional(),
    webhook_url: HttpUrl.optional().describe('Events for this payment are POSTed here (signed).'),
    expires_in_minutes: z
      .number()
      .int('expires_in_minutes must be a whole number')
      .min(1, 'expires_in_minutes must be between 1 and 1440')
      .max(1440, 'expires_in_minutes must be between 1 and 1440')
      .default(60)
      .describe('How long the checkout session stays open, in minutes.'),
    discoverable: z
      .boolean({ message: 'discoverable must be true or false' })
      .optional()
      .describe('List this session in the public x402 discovery listing (`GET /api/x402/discovery/resources`, bazaar) while it can be paid, so agents can find it.'),
    capture_method: z
      .enum(['automatic', 'manual'], { message: 'capture_method must be "automatic" or "manual"' })
      .optional()
      .describe('`manual`: an agent paying the `x402_url` authorizes (x402 auth-capture: the funds are held in escrow, status `authorized`); you capture all or part with `POST /v1/payments/{id}/capture` or release it with `/void`; an authorization not captured by its deadline is voided automatically. Default `automatic`.'),
    capture_within_minutes: z
      .number({ message: 'capture_within_minutes must be a whole number of minutes' })
      .int('capture_within_minutes must be a whole number of minutes')
      .min(1, 'capture_within_minutes must be between 1 and 10080')
      .max(10080, 'capture_within_minutes must be between 1 and 10080')
      .optional()
      .describe('With `capture_method: "manual"`: how long an authorization may stay uncaptured before it is voided and the money returned, 1-10080 minutes (default 10080, 7 days, or the deployment\'s `AUTH_CAPTURE_HOLD`).'),
  })
  .strict()
  // DESIGN.md section 11: a capture window means nothing to an automatic capture (h17tour: the field was unknown).
  .refine((b) => b.capture_within_minutes === undefined || b.capture_method === 'manual', {
    message: 'capture_within_minutes needs capture_method "manual"',
    path: ['capture_within_minutes'],
  });
export type CreatePaymentInput = z.infer<typeof CreatePaymentInput>;

export const ListPaymentsQuery = z
  .object({
    limit: PageLimit,
    starting_after: startingAfter('A payment'),
    status: PaymentStatus.optional(),
    reference: z.string().min(1).max(64).optional(),
  })
  .strict();
export type ListPaymentsQuery = z.infer<typeof ListPaymentsQuery>;

export const PaymentId = z.string().regex(/^pay_[0-9A-Za-z]{10,64}$/, 'not a payment id');
