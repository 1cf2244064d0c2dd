/**
 * `GET /metrics` (issue 23 point 5, docs/metrics.md): scraped over real HTTP and read with a
 * real Prometheus text-format parser (parse-prometheus-text-format, prom2json's output), not
 * prom-client's own registry. The relayer's gas floor shows on /readyz and in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { createLogger } from '../../src/lib/logger.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const TOKEN = 'metrics-token-0123456789abcdef';
let s: TestService;
let m: Merchant;
const logLines: any[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  // A floor no dev relayer reaches: the relayer reads as low on gas.
  s = await startTestService({ METRICS_TOKEN: TOKEN, RELAYER_MIN_GAS_BALANCE: '100000000', RECONCILE_INTERVAL: '1h' }, { logger: createLogger('warn', sink) });
  m = await createMerchant(s.api, 'Metrics Shop');
});
afterAll(() => s?.stop({ removeData: true }));

let lastText = '';

async function scrape(): Promise<Map<string, PromFamily>> {
  const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  lastText = await res.text();
  // Throws on any line that is not valid text format.
  const families = parsePrometheusTextFormat(lastText);
  return new Map(families.map((f) => [f.name, f]));
}

/**
 * One series of a labelled histogram, by the parser. parse-prometheus-text-format 1.1.1 folds a
 * histogram family into one unlabelled sample (it keeps the buckets by `le` only and drops
 * labelled _sum/_count), so each series is handed to it as a document of its own: the family's
 * HELP/TYPE lines and that series' bucket lines. The `+Inf` bucket is the series' count.
 */
function histogramSeries(name: string, labels: Record<string, string>): Record<string, string> | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = lastText
    .split('\n')
    .filter((l) => l.startsWith(`# HELP ${name} `) || l === `# TYPE ${name} histogram` || (l.startsWith(`${name}_bucket{`) && want.every((w) => l.includes(w))));
  const [family] = parsePrometheusTextFormat(lines.join('\n') + '\n');
  return family?.metrics[0]?.buckets;
}

const sampleOf = (f: PromFamily | undefined, labels: Record<string, string> = {}) =>
  f?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));

describe('GET /metrics', () => {
  it('answers 401 in the developer error shape without the bearer token, or with a wrong one', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${m.key}`]) {
      const res = await fetch(`${s.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = await res.json();
      expect(body.error.type).toBe('authentication_error');
    }
  });

  it('counts what an operator watches, by route pattern, in the Prometheus text format', async () => {
    // Traffic: two creates, reads of two different ids, one settled payment, an expired one, an agent turn.
    const a = await call(`${s.api}/v1/payments`, { key: m.key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/ok' } });
    const b = await call(`${s.api}/v1/payments`, { key: m.key, body: { amount: 6, currency: 'USD', redirect_url: 'https://shop.example/ok' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    for (const id of [a.body.id, b.body.id]) expect((await call(`${s.api}/checkout/${id}`)).status).toBe(200);
    const paid = await call(`${s.api}/dev/test-wallet-pay/${a.body.id}`, { body: {} });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await s.deps.payments.sweepExpired(Date.now() + 3 * 3_600_000)).toBeGreaterThanOrEqual(1);
    const turn = await call(`${s.api}/agent/settle`, { key: m.key, body: { message: 'what is my balance' } });
    expect(turn.status).toBe(200);
    expect(await s.deps.scheduler.runNow('sweep:expiry')).toBe(true);

    const f = await scrape();
    // Latency per route pattern: one series for both ids, never the raw URL.
    const http = f.get('stablepay_http_request_duration_seconds')!;
    expect(http.type).toBe('HISTOGRAM');
    const read = histogramSeries('stablepay_http_request_duration_seconds', { method: 'GET', route: '/api/checkout/:id', status_code: '200' })!;
    expect(read['+Inf']).toBe('2');
    expect(Number(read['10'])).toBe(2);
    expect(histogramSeries('stablepay_http_request_duration_seconds', { method: 'POST', route: '/api/v1/payments', status_code: '201' })!['+Inf']).toBe('2');
    expect(lastText).not.toContain(a.body.id);

    expect(Number(sampleOf(f.get('stablepay_payments_created_total'))!.value)).toBe(2);
    const transitions = f.get('stablepay_payment_transitions_total')!;
    expect(Number(sampleOf(transitions, { status: 'settled' })!.value)).toBe(1);
    expect(Number(sampleOf(transitions, { status: 'expired' })!.value)).toBe(1);
    const settles = f.get('stablepay_settlement_duration_seconds')!;
    expect(settles.type).toBe('HISTOGRAM');
    expect(histogramSeries('stablepay_settlement_duration_seconds', { outcome: 'settled' })!['+Inf']).toBe('1');
    expect(Number(sampleOf(f.get('stablepay_agent_turns_total'), { outcome: 'ok' })!.value)).toBe(1);

    // Relayer: gas balance in ether, nonce lag from the node.
    const gas = Number(sampleOf(f.get('stablepay_relayer_gas_balance_ether'))!.value);
    expect(gas).toBeGreaterThan(0);
    expect(Number(sampleOf(f.get('stablepay_relayer_nonce_lag'))!.value)).toBeGreaterThanOrEqual(0);
    // Webhooks: nothing is configured to receive, so nothing is pending.
    expect(Number(sampleOf(f.get('stablepay_webhook_backlog'))!.value)).toBe(0);
    expect(f.get('stablepay_webhook_delivery_lag_seconds')?.type).toBe('HISTOGRAM');
    expect(Number(sampleOf(f.get('stablepay_webhook_oldest_pending_seconds'))!.value)).toBe(0);

    // Scheduler: passes by job, and this instance holds the lease it ran under.
    expect(Number(histogramSeries('stablepay_scheduler_pass_duration_seconds', { job: 'sweep:expiry', outcome: 'ok' })!['+Inf'])).toBeGreaterThanOrEqual(1);
    expect(Number(sampleOf(f.get('stablepay_scheduler_lease_held'), { job: 'sweep:expiry' })!.value)).toBe(1);
    expect(sampleOf(f.get('stablepay_instance_info'))!.labels!.instance_id).toMatch(/\S/);
    expect(f.get('stablepay_store_transaction_retries_total')?.type).toBe('COUNTER');
    // The process's own (CPU, memory, event loop) come along.
    expect(f.get('process_cpu_seconds_total')?.type).toBe('COUNTER');
  });

  it('flags a relayer under RELAYER_MIN_GAS_BALANCE on /readyz and logs a warning', async () => {
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(body.details.store).toBe(true);
    expect(body.details.chain).toBe(true);
    expect(body.details.relayer.low_gas).toBe(true);
    expect(BigInt(body.details.relayer.gas_balance_wei)).toBeLessThan(BigInt(body.details.relayer.min_gas_balance_wei));
    expect(body.details.relayer.address).toBe(s.deps.chain.relayerAddress);
    const warned = logLines.filter((l) => l.level === 40 && /RELAYER_MIN_GAS_BALANCE/.test(l.msg));
    expect(warned.length).toBe(1);
    expect(warned[0].relayer).toBe(s.deps.chain.relayerAddress);
  });
});
