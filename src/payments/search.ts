/**
 * Searching an account's payments the way the dashboard does (status, reference or id, UTC
 * date range, cursor paging). One schema for the web app, its JSON routes and the OpenAPI document.
 */
import { z } from 'zod';
import { PaymentStatus } from './payment-schemas.js';

/** Blank form fields ("status=") mean "not set". */
const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const Day = z.iso.date({ message: 'must be a date like 2026-11-26' });

export const MAX_PERIOD_DAYS = 366;

/** The fields, without the cross-field rule (for picking parts of it). */
export const DashboardFields = z.object({
    status: z.preprocess(blank, PaymentStatus.optional()),
    q: z.preprocess(blank, z.string().trim().max(100, 'must be at most 100 characters').optional()),
    from: z.preprocess(blank, Day.optional()),
    to: z.preprocess(blank, Day.optional()),
    limit: z.preprocess(blank, z.coerce.number().int().min(1).max(100).default(25)),
    starting_after: z.preprocess(blank, z.string().max(64).optional()),
  });

export const DashboardQuery = DashboardFields.refine((q) => !q.from || !q.to || q.from <= q.to, { message: '"from" must not be after "to"', path: ['from'] });
export type DashboardQuery = z.infer<typeof DashboardQuery>;
