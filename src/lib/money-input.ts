import { z } from 'zod';

/** A positive decimal amount as text ("5000", "12.50"); parsed to base units by the module that knows the currency. */
export const DecimalAmount = z
  .string()
  .trim()
  .regex(/^\d{1,12}(\.\d{1,18})?$/, 'must be a positive decimal number like "5000" or "12.50"')
  .refine((s) => /[1-9]/.test(s), 'must be greater than zero');
export type DecimalAmount = z.infer<typeof DecimalAmount>;

/** ISO 4217-style currency code (USDC included), case-insensitive, stored upper-case. */
export const CurrencyCode = z
  .string()
  .trim()
  .min(2)
  .max(8)
  .regex(/^[A-Za-z]+$/, 'must be letters only, like "USD" or "KES"')
  .transform((s) => s.toUpperCase());
export type CurrencyCode = z.infer<typeof CurrencyCode>;
