/**
 * Several webhook endpoints per account, each with an optional list of event types
 * (docs/webhooks.md, "Endpoints"). The default endpoint (`PUT /api/webhook-endpoint`, the
 * row whose id is the account id) stays as it was; these are the others (`we_...`). All of an
 * account's endpoints are signed with the account's one signing secret.
 */
import { z } from 'zod';
import type { Store, Tx } from '../store/index.js';
import { newId, nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import { inMode } from '../lib/livemode.js';
import { defaultEndpointId, EVENT_TYPES, WebhookEndpoints, type EventType, type WebhookEndpoint } from './outbox.js';
import type { WebhookSecretsService } from './secrets.js';
import type { EndpointCache } from './endpoint-cache.js';
import type { UrlCheckFailure } from './url-guard.js';

/** Endpoints an account may add besides its default one. */
export const MAX_ENDPOINTS = 16;

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048, 'must be at most 2048 characters');
export const EnabledEvents = z
  .array(z.enum(EVENT_TYPES, { error: `event types must be among ${EVENT_TYPES.join(', ')}` }))
  .min(1, 'enabled_events must list at least one event type (omit it for all)')
  .max(EVENT_TYPES.length)
  .describe('Event types sent to this endpoint; omitted or null: all.');

export const CreateEndpointInput = z
  .object({
    url: HttpUrl,
    enabled_events: EnabledEvents.optional(),
    description: z.string().max(200, 'description must be at most 200 characters').optional(),
  })
  .strict();
export type CreateEndpointInput = z.infer<typeof CreateEndpointInput>;

export const UpdateEndpointInput = z
  .object({
    url: HttpUrl.optional(),
    enabled_events: EnabledEvents.nullable().optional(),
    description: z.string().max(200, 'description must be at most 200 characters').nullable().optional(),
    disabled: z.boolean().optional().describe('false enables an endpoint a 410 Gone disabled; true disables it.'),
  })
  .strict();
export type UpdateEndpointInput = z.infer<typeof UpdateEndpointInput>;

export const EndpointId = z.string().regex(/^we_[0-9A-Za-z]{10,64}$/, 'not a webhook endpoint id');

export type EndpointFailure = UrlCheckFailure | 'not_found' | 'too_many';

export class WebhookEndpointsService {
  constructor(
    private readonly store: Store,
    private readonly secrets: WebhookSecretsService,
    private readonly checkUrl: (url: string, param: string) => Promise<Result<{ url: string }, UrlCheckFailure>>,
    /** Told of every change, in its transaction (the outbox remembers endpoints). */
    private readonly cache?: Pick<EndpointCache, 'changedIn' | 'transaction'>,
  ) {}

  /** A write of endpoints: answers once every instance dropped what it changed (EndpointCache). */
  private writeEndpoints<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return this.cache ? this.cache.transaction(fn) : this.store.transaction(fn);
  }

  /** The default endpoint first (when set), then the added ones in creation order. */
  async list(accountId: string, livemode = true): Promise<WebhookEndpoint[]> {
    const t = this.store.table(WebhookEndpoints);
    const main = await t.get(defaultEndpointId(accountId, livemode));
    return [...(main ? [main] : []), ...(await t.findMany({ accountId, livemode }))];
  }

  async get(accountId: string, id: string, livemode = true): Promise<WebhookEndpoint | undefined> {
    const e = await this.store.table(WebhookEndpoints).get(id);
    return e && e.accountId === accountId && inMode(e, livemode) ? e : undefined;
  }

  /**
   * Adds an endpoint; returns the signing secret of its mode when no response has shown it yet
   * (shown once; a test key is shown the test secret, which signs test events only).
   */
  async create(accountId: string, input: CreateEndpointInput, livemode = true): Promise<Result<{ endpoint: WebhookEndpoint; secret?: string }, EndpointFailure>> {
    const checked = await this.checkUrl(input.url, 'url');
    if (!checked.ok) return checked;
    return this.writeEndpoints(async (tx) => {
      const t = tx.table(WebhookEndpoints);
      if ((await t.count({ accountId })) >= MAX_ENDPOINTS) {
        return fail('too_many' as const, `An account can have at most ${MAX_ENDPOINTS} added webhook endpoints; delete one first.`);
      }
      const now = nowIso();
      const endpoint = await t.insert({
        id: newId('we'),
        accountId,
        url: input.url,
        ...(input.enabled_events ? { enabledEvents: dedupe(input.enabled_events) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        createdAt: now,
        updatedAt: now,
        livemode,
      });
      await this.cache?.changedIn(tx, accountId);
      const secret = await this.secrets.ensureIn(tx, accountId, { reveal: true, livemode });
      return secret ? { ok: true as const, endpoint, secret } : { ok: true as const, endpoint };
    });
  }

  async update(accountId: string, id: string, input: UpdateEndpointInput, livemode = true): Promise<Result<{ endpoint: WebhookEndpoint }, EndpointFailure>> {
    if (input.url !== undefined) {
      const checked = await this.checkUrl(input.url, 'url');
      if (!checked.ok) return checked;
    }
    return this.writeEndpoints(async (tx) => {
      const t = tx.table(WebhookEndpoints);
      const e = await t.get(id);
      if (!e || e.accountId !== accountId || !inMode(e, livemode)) return fail('not_found' as const, `No such webhook endpoint: ${id}`);
      const now = nowIso();
      const patch: Partial<WebhookEndpoint> = { updatedAt: now };
      if (input.url !== undefined) patch.url = input.url;
      if (input.enabled_events !== undefined) patch.enabledEvents = input.enabled_events === null ? undefined : dedupe(input.enabled_events);
      if (input.description !== undefined) patch.description = input.description ?? undefined;
      if (input.disabled === false) Object.assign(patch, { disabledAt: undefined, disabledReason: undefined });
      if (input.disabled === true && !e.disabledAt) Object.assign(patch, { disabledAt: now, disabledReason: 'Disabled by the merchant.' });
      const updated = await t.update(id, patch);
      await this.cache?.changedIn(tx, accountId);
      return updated ? { ok: true as const, endpoint: updated } : fail('not_found' as const, `No such webhook endpoint: ${id}`);
    });
  }

  async remove(accountId: string, id: string, livemode = true): Promise<boolean> {
    return this.writeEndpoints(async (tx) => {
      const t = tx.table(WebhookEndpoints);
      const e = await t.get(id);
      if (!e || e.accountId !== accountId || !inMode(e, livemode)) return false;
      await this.cache?.changedIn(tx, accountId);
      return t.remove(id);
    });
  }
}

const dedupe = (types: EventType[]): EventType[] => [...new Set(types)];
