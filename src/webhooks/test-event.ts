/**
 * "Send a test event" (issue 27): one signed POST of a sample event to one of the account's
 * endpoints, made now and answered with the receiver's reply, so a merchant can check the URL,
 * their signature check and their firewall before a real payment. It is not an event of the
 * account: nothing is stored, retried or listed in the delivery log or the events API.
 *
 * The body has the shape of every event (interface 6), of the endpoint's first event type, about
 * a payment that does not exist (`pay_test_...`). It carries the endpoint's mode in `livemode`
 * (docs/test-mode.md), so the marker is the `StablePay-Test-Event: 1` header, the `evt_test_` id
 * and the metadata.
 */
import { randomBase62 } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import { inMode } from '../lib/livemode.js';
import type { Store } from '../store/index.js';
import { defaultEndpointId, WebhookEndpoints, type EventType } from './outbox.js';
import { isTransferEvent, type PaymentEventPayload, type PaymentEventType, type WebhookEventPayload } from './webhook-schemas.js';
import type { WebhookSecretsService } from './secrets.js';
import { DELIVERY_TIMEOUT_MS, postWebhook, type SendResult } from './sender.js';
import { signatureHeader, standardWebhookHeaders } from './signing.js';
import { SIGNATURE_HEADER } from './verify.js';

export const TEST_EVENT_HEADER = 'StablePay-Test-Event';

export interface TestEventOutcome {
  event: WebhookEventPayload;
  url: string;
  result: SendResult;
}

const STATUS_OF: Record<PaymentEventType, PaymentEventPayload['data']['status']> = {
  'payment.settled': 'settled',
  'payment.expired': 'expired',
  'payment.failed': 'failed',
  'payment.canceled': 'canceled',
  'payment.refunded': 'refunded',
  'refund.succeeded': 'settled',
  'refund.failed': 'settled',
  'payment.authorized': 'authorized',
  'payment.captured': 'captured',
  'payment.voided': 'voided',
};

const CLAIM_STATUS_OF = { 'transfer.claim_created': 'open', 'transfer.claimed': 'claimed', 'transfer.claim_canceled': 'canceled', 'transfer.claim_expired': 'expired' } as const;

export function testEventBody(type: EventType, now = Date.now(), livemode = true): WebhookEventPayload {
  if (type === 'policy.updated') {
    return {
      id: `evt_test_${randomBase62(20)}`,
      type,
      created: Math.floor(now / 1000),
      livemode,
      data: { scope: 'account', key_id: null, policy: { usd: { per_transaction: '50' } }, previous: {} },
    };
  }
  if (isTransferEvent(type)) {
    return {
      id: `evt_test_${randomBase62(20)}`,
      type,
      created: Math.floor(now / 1000),
      livemode,
      data: {
        id: `clm_test_${randomBase62(16)}`,
        object: 'transfer',
        type: 'claim',
        role: 'sender',
        status: CLAIM_STATUS_OF[type],
        amount: '12.5',
        fee: '0.0625',
        currency: 'USDC',
        source_amount: '12.5',
        source_currency: 'USD',
        recipient: '+2547•••••678',
        sender_account: 'acct_test',
        expires_at: new Date(now + 7 * 86_400_000).toISOString(),
      },
    };
  }
  return {
    id: `evt_test_${randomBase62(20)}`,
    type,
    created: Math.floor(now / 1000),
    livemode,
    data: {
      id: `pay_test_${randomBase62(16)}`,
      reference: 'test-event',
      amount: 12.5,
      currency: 'USD',
      status: STATUS_OF[type],
      metadata: { test_event: true },
    },
  };
}

export interface TestEventDeps {
  store: Store;
  secrets: WebhookSecretsService;
  /** Production: only public https addresses (the same guard as real deliveries). */
  guard: boolean;
  send?: typeof postWebhook;
}

/**
 * Sends a test event to the account's endpoint `id` (`default` or `we_...`). Another account's
 * endpoint is `not_found`, exactly like one that does not exist.
 */
export async function sendTestEvent(deps: TestEventDeps, accountId: string, id: string, livemode = true): Promise<Result<TestEventOutcome, 'not_found' | 'no_secret'>> {
  // The default endpoint's row has the account id (per mode) as its id; added ones carry `accountId`.
  const mainId = defaultEndpointId(accountId, livemode);
  const endpoint = await deps.store.table(WebhookEndpoints).get(id === 'default' ? mainId : id);
  const owned = id === 'default' ? endpoint?.id === mainId : endpoint?.accountId === accountId && inMode(endpoint, livemode);
  if (!endpoint || !owned || !endpoint.url) {
    return fail('not_found', `No such webhook endpoint: ${id}`);
  }
  const now = Date.now();
  const secrets = await deps.secrets.signingSecrets(accountId, now, livemode);
  if (secrets.length === 0) return fail('no_secret', 'No signing secret yet: create one first (POST /api/webhook-secret).');
  const event = testEventBody(endpoint.enabledEvents?.[0] ?? 'payment.settled', now, livemode);
  const body = JSON.stringify(event);
  const result = await (deps.send ?? postWebhook)(endpoint.url, body, {
    headers: { [SIGNATURE_HEADER]: signatureHeader(body, secrets, now), ...standardWebhookHeaders(event.id, body, secrets, now), [TEST_EVENT_HEADER]: '1' },
    guard: deps.guard,
    timeoutMs: DELIVERY_TIMEOUT_MS,
  });
  return { ok: true, event, url: endpoint.url, result };
}
