/**
 * The metrics port over prom-client (docs/metrics.md). One registry per service (tests run
 * several services in one process; the global registry would mix them), the process's
 * default metrics (CPU, memory, event-loop lag, GC) beside the service's own.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SAMPLED, type Metrics, type SampledMetric } from './metrics-port.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOW_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400];

export function prometheusMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const http = new Histogram({
    name: 'stablepay_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const created = new Counter({ name: 'stablepay_payments_created_total', help: 'Payments created.', registers });
  const statuses = new Counter({
    name: 'stablepay_payment_transitions_total',
    help: 'Payments reaching a status (settled, expired, failed, canceled, refunded, ...).',
    labelNames: ['status'],
    registers,
  });
  const settles = new Histogram({
    name: 'stablepay_settlement_duration_seconds',
    help: 'Settle calls by outcome (settled, processing, or the failure reason) and their latency.',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const webhookLag = new Histogram({
    name: 'stablepay_webhook_delivery_lag_seconds',
    help: 'From a webhook event being queued to its delivery.',
    buckets: SLOW_BUCKETS,
    registers,
  });
  const turns = new Counter({ name: 'stablepay_agent_turns_total', help: 'Agent turns by outcome.', labelNames: ['outcome'], registers });
  const passes = new Histogram({
    name: 'stablepay_scheduler_pass_duration_seconds',
    help: 'Background passes run by this instance, by job and outcome.',
    labelNames: ['job', 'outcome'],
    buckets: SLOW_BUCKETS,
    registers,
  });
  const leases = new Gauge({
    name: 'stablepay_scheduler_lease_held',
    help: "1 when this instance holds the job's lease (runs its passes), else 0.",
    labelNames: ['job'],
    registers,
  });
  const retries = new Counter({
    name: 'stablepay_store_transaction_retries_total',
    help: 'Store transactions run again, by cause (SQLSTATE, or key_taken).',
    labelNames: ['code'],
    registers,
  });
  const info = new Gauge({ name: 'stablepay_instance_info', help: 'This instance: its id among the instances sharing the store (the lease owner).', labelNames: ['instance_id'], registers });

  const readers = new Map<SampledMetric, () => Promise<number | undefined>>();
  for (const [key, def] of Object.entries(SAMPLED) as [SampledMetric, (typeof SAMPLED)[SampledMetric]][]) {
    new Gauge({
      name: def.name,
      help: def.help,
      registers,
      async collect() {
        const read = readers.get(key);
        const v = read ? await read().catch(() => undefined) : undefined;
        // Unknown now: no sample rather than a made-up 0.
        if (v === undefined) this.reset();
        else this.set(v);
      },
    });
  }

  return {
    enabled: true,
    httpRequest: (method, route, status, seconds) => http.observe({ method, route, status_code: String(status) }, seconds),
    paymentCreated: () => created.inc(),
    paymentStatus: (status) => statuses.inc({ status }),
    settlement: (outcome, seconds) => settles.observe({ outcome }, seconds),
    webhookDelivered: (lag) => webhookLag.observe(Math.max(0, lag)),
    agentTurn: (outcome) => turns.inc({ outcome }),
    schedulerPass: (job, outcome, seconds) => passes.observe({ job, outcome }, seconds),
    leaseHeld: (job, held) => leases.set({ job }, held ? 1 : 0),
    storeRetry: (code) => retries.inc({ code }),
    instance: (id) => {
      info.reset();
      info.set({ instance_id: id }, 1);
    },
    sample: (metric, read) => void readers.set(metric, read),
    exposition: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
