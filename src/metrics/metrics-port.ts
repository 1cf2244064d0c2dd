/**
 * The metrics port (docs/metrics.md): what the service counts for operators, in the domain's
 * own words. Domain modules, the store and the scheduler call this interface; only
 * ./prometheus.ts knows prom-client, so the counting code does not change with the exporter
 * and a service without METRICS_TOKEN pays nothing (`noMetrics`).
 *
 * Imports nothing: every layer may use it.
 */

/** Values read when the endpoint is scraped, not pushed (a balance, a queue length). */
export const SAMPLED = {
  relayerGasBalance: { name: 'stablepay_relayer_gas_balance_ether', help: "The relayer's native balance (pays every transaction's gas), in ether." },
  relayerNonceLag: {
    name: 'stablepay_relayer_nonce_lag',
    help: "The relayer's transactions the node holds but has not mined (pending nonce - latest nonce).",
  },
  webhookBacklog: { name: 'stablepay_webhook_backlog', help: 'Webhook deliveries still pending (not delivered, not given up).' },
  webhookOldestPending: {
    name: 'stablepay_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none is pending).',
  },
} as const;
export type SampledMetric = keyof typeof SAMPLED;

export interface Metrics {
  /** False for `noMetrics`: callers may skip work done only to feed a metric. */
  readonly enabled: boolean;
  /** One HTTP request, labelled by its route pattern (never the raw URL). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  paymentCreated(): void;
  /** A payment reached `status` (settled, expired, failed, canceled, refunded, ...). */
  paymentStatus(status: string): void;
  /** One settle call: `settled`, `processing` (receipt not yet in) or the failure reason. */
  settlement(outcome: string, seconds: number): void;
  /** A webhook delivered, `lagSeconds` after its event was queued. */
  webhookDelivered(lagSeconds: number): void;
  /** One agent turn: `ok`, `pending` (waits for a confirm) or the failure reason. */
  agentTurn(outcome: string): void;
  /** One scheduler pass of `job` run by this instance. */
  schedulerPass(job: string, outcome: 'ok' | 'failed', seconds: number): void;
  /** Whether this instance holds `job`'s lease now. */
  leaseHeld(job: string, held: boolean): void;
  /** A store transaction run again (serialization failure, deadlock, a unique key taken meanwhile). */
  storeRetry(code: string): void;
  /** Names this instance (its lease owner id) in `stablepay_instance_info`. */
  instance(id: string): void;
  /** Registers how to read a sampled value at scrape time (undefined: not known now, left out). */
  sample(metric: SampledMetric, read: () => Promise<number | undefined>): void;
  /** The text an operator's Prometheus scrapes. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

const nothing = () => undefined;

/** Metrics switched off (METRICS_TOKEN unset): every call is a no-op. */
export const noMetrics: Metrics = {
  enabled: false,
  httpRequest: nothing,
  paymentCreated: nothing,
  paymentStatus: nothing,
  settlement: nothing,
  webhookDelivered: nothing,
  agentTurn: nothing,
  schedulerPass: nothing,
  leaseHeld: nothing,
  storeRetry: nothing,
  instance: nothing,
  sample: nothing,
  exposition: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};
