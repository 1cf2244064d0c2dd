import { z } from 'zod';

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048);

/** PUT /api/webhook-endpoint: the account's default endpoint; null clears it. */
export const SetEndpointInput = z.object({ url: HttpUrl.nullable() }).strict();
export type SetEndpointInput = z.infer<typeof SetEndpointInput>;

/** GET /api/webhook-deliveries */
export const ListDeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    starting_after: z.string().min(1).max(100).optional(),
    payment_id: z.string().min(1).max(100).optional(),
  })
  .strict();
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;

export const DeliveryId = z.string().regex(/^whd_[0-9A-Za-z]{10,64}$/, 'not a webhook delivery id');
