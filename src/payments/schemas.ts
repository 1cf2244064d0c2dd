import { z } from 'zod';
import { isAddress } from 'viem';

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048);

const MetadataValue = z.union([z.string().max(500, 'metadata values must be at most 500 characters'), z.number(), z.boolean()], {
  error: 'metadata values must be strings, numbers or booleans',
});

export const Metadata = z
  .record(z.string().min(1, 'metadata keys must be 1-40 characters').max(40, 'metadata keys must be at most 40 characters'), MetadataValue)
  .refine((m) => Object.keys(m).length <= 50, 'metadata can have at most 50 keys');
export type Metadata = z.infer<typeof Metadata>;

export const PAYMENT_STATUSES = ['pending', 'processing', 'settled', 'failed', 'expired'] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** Interface 4.1; `expires_in_minutes` is the session-lifetime field DESIGN.md 4 names. */
export const CreatePaymentInput = z
  .object({
    amount: z
      .number({ message: 'amount must be a number' })
      .positive('amount must be positive')
      .max(1_000_000_000, 'amount must be at most 1,000,000,000'),
    currency: z
      .string({ message: 'currency must be a string' })
      .min(2, 'currency must be 2-8 characters')
      .max(8, 'currency must be 2-8 characters')
      .transform((s) => s.toUpperCase()),
    redirect_url: HttpUrl,
    reference: z.string().min(1).max(64, 'reference must be at most 64 characters').optional(),
    merchant_name: z.string().max(80, 'merchant_name must be at most 80 characters').optional(),
    description: z.string().max(300, 'description must be at most 300 characters').optional(),
    payout_address: z
      .string()
      .refine((s) => isAddress(s, { strict: false }), 'payout_address must be a 0x EVM address')
      .optional(),
    metadata: Metadata.optional(),
    webhook_url: HttpUrl.optional(),
    expires_in_minutes: z
      .number()
      .int('expires_in_minutes must be a whole number')
      .min(1, 'expires_in_minutes must be between 1 and 1440')
      .max(1440, 'expires_in_minutes must be between 1 and 1440')
      .default(60),
  })
  .strict();
export type CreatePaymentInput = z.infer<typeof CreatePaymentInput>;

export const ListPaymentsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    starting_after: z.string().min(1).max(100).optional(),
    status: PaymentStatus.optional(),
    reference: z.string().min(1).max(64).optional(),
  })
  .strict();
export type ListPaymentsQuery = z.infer<typeof ListPaymentsQuery>;

export const PaymentId = z.string().regex(/^pay_[0-9A-Za-z]{10,64}$/, 'not a payment id');
