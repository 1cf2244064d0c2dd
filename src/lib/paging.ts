import { z } from 'zod';

const LIMIT_MESSAGE = 'limit must be a whole number between 1 and 100';

/** `limit` of every list endpoint (query string, so coerced): 1-100, 10 when absent. */
export const PageLimit = z.coerce
  .number({ error: LIMIT_MESSAGE })
  .int(LIMIT_MESSAGE)
  .min(1, LIMIT_MESSAGE)
  .max(100, LIMIT_MESSAGE)
  .default(10);

/** `starting_after` of every list endpoint: an id of the kind listed. */
export const startingAfter = (kind: string) =>
  z.string().min(1).max(100).optional().describe(`${kind} id: the page starts after it.`);
