import { timeText } from '../lib/time-text.js';
/**
 * The dashboard's reads, always scoped to one account: the filtered payments list (also as
 * CSV), totals for a period with a daily series, and one payment with its events and their
 * deliveries. Amounts are summed in stablecoin base units (bigint): every payment settles in
 * the stablecoin whatever its currency, so that is the one unit totals can be added in.
 */
import { addressUrl, txUrl, type NetworkInfo } from '../wallet/wallets.js';
import { usdcDecimal } from '../lib/money.js';
import type { Payment } from '../payments/payments.js';
import type { WebDeps } from './deps.js';

export { DashboardQuery, MAX_PERIOD_DAYS } from '../payments/search.js';
import { DashboardQuery, MAX_PERIOD_DAYS } from '../payments/search.js';

/** Fields of payments that other modules add over time (refunds, cancel) read where present. */
type Row = Payment & { amountRefunded?: string; stablecoinRefunded?: string; canceledAt?: string; cancellationReason?: string };

const dayOf = (iso: string) => iso.slice(0, 10);
const utcText = (iso: string) => timeText(iso); // one format with its zone on every page (src/lib/time-text.ts)

export function dashboardNetwork(deps: Pick<WebDeps, 'wallets'>): NetworkInfo {
  return deps.wallets.network;
}

/** The account's payments matching the filter, newest first (effective statuses). */
async function matching(deps: WebDeps, accountId: string, q: DashboardQuery, livemode = true): Promise<Row[]> {
  const rows = (await deps.payments.allOf(accountId, 'desc', livemode)).map((p) => deps.payments.view(p) as Row);
  const needle = q.q?.toLowerCase();
  return rows.filter((p) => {
    if (q.status && p.status !== q.status) return false;
    if (needle && !(p.id.toLowerCase() === needle || p.id.toLowerCase().startsWith(needle) || (p.reference ?? '').toLowerCase().includes(needle))) return false;
    const day = dayOf(p.createdAt);
    if (q.from && day < q.from) return false;
    if (q.to && day > q.to) return false;
    return true;
  });
}

/** The list row the dashboard shows (snake_case like the API). */
export function listItem(p: Row, checkoutUrl: string) {
  return {
    id: p.id,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    stablecoin_amount: usdcDecimal(p.stablecoinAmount),
    amount_refunded: p.amountRefunded ?? '0',
    stablecoin_refunded: usdcDecimal(p.stablecoinRefunded ?? '0'),
    reference: p.reference ?? null,
    description: p.description ?? null,
    created_at: p.createdAt,
    settled_at: p.settledAt ?? null,
    checkout_url: checkoutUrl,
    // Manual capture (x402 auth-capture): what is held in escrow, captured and voided, in the stablecoin.
    ...(p.captureMethod === 'manual'
      ? {
          capture_method: 'manual' as const,
          amount_capturable: usdcDecimal(p.amountCapturable ?? '0'),
          amount_captured: usdcDecimal(p.amountCaptured ?? '0'),
          amount_voided: usdcDecimal(p.amountVoided ?? '0'),
          capture_before: p.captureBefore ?? null,
        }
      : {}),
  };
}

export async function listPayments(deps: WebDeps, accountId: string, q: DashboardQuery, livemode = true) {
  const rows = await matching(deps, accountId, q, livemode);
  let start = 0;
  if (q.starting_after) {
    const i = rows.findIndex((p) => p.id === q.starting_after);
    if (i < 0) return { ok: false as const, message: `No such payment: ${q.starting_after}`, param: 'starting_after' };
    start = i + 1;
  }
  const page = rows.slice(start, start + q.limit);
  return {
    ok: true as const,
    data: page.map((p) => listItem(p, deps.payments.checkoutUrl(p.id))),
    has_more: rows.length > start + q.limit,
    total_count: rows.length,
  };
}

const CSV_COLUMNS = [
  'id', 'created_at', 'status', 'amount', 'currency', 'stablecoin_amount', 'amount_refunded', 'stablecoin_refunded',
  'reference', 'description', 'payer', 'tx_hash', 'settled_at', 'metadata',
] as const;

/** A CSV cell: quoted, and formula-looking text defused so spreadsheets never run it. */
function cell(v: unknown): string {
  let s = v === undefined || v === null ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

/** Every payment matching the filter (no paging) as RFC 4180 CSV. */
export async function paymentsCsv(deps: WebDeps, accountId: string, q: DashboardQuery, livemode = true): Promise<string> {
  const rows = await matching(deps, accountId, q, livemode);
  const lines = [CSV_COLUMNS.join(',')];
  for (const p of rows) {
    const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
      id: p.id,
      created_at: p.createdAt,
      status: p.status,
      amount: p.amount,
      currency: p.currency,
      stablecoin_amount: usdcDecimal(p.stablecoinAmount),
      amount_refunded: p.amountRefunded ?? '0',
      stablecoin_refunded: usdcDecimal(p.stablecoinRefunded ?? '0'),
      reference: p.reference,
      description: p.description,
      payer: p.payer,
      tx_hash: p.txHash,
      settled_at: p.settledAt,
      metadata: p.metadata && Object.keys(p.metadata).length ? JSON.stringify(p.metadata) : '',
    };
    lines.push(CSV_COLUMNS.map((c) => cell(values[c])).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** The period a summary covers: the filter's dates, else the last 30 days (UTC). */
export function periodOf(q: Pick<DashboardQuery, 'from' | 'to'>, now = new Date()): { from: string; to: string } {
  const to = q.to ?? now.toISOString().slice(0, 10);
  let from = q.from ?? addDays(to, -29);
  if (addDays(from, MAX_PERIOD_DAYS - 1) < to) from = addDays(to, -(MAX_PERIOD_DAYS - 1));
  return { from, to };
}

/**
 * Totals for the period: money settled (by settlement day), refunded (by refund day) and net,
 * in the stablecoin, with one entry per day for the chart. Other filters (status, search) do
 * not apply: the totals are the period's.
 */
export async function summary(deps: WebDeps, accountId: string, q: Pick<DashboardQuery, 'from' | 'to'>, livemode = true) {
  const { from, to } = periodOf(q);
  const days = new Map<string, { settled: bigint; refunded: bigint; count: number }>();
  for (let d = from; d <= to; d = addDays(d, 1)) days.set(d, { settled: 0n, refunded: 0n, count: 0 });
  let settled = 0n;
  let refunded = 0n;
  let count = 0;
  const rows = (await deps.payments.allOf(accountId, 'asc', livemode)) as Row[];
  for (const p of rows) {
    if (!p.settledAt) continue;
    const slot = days.get(dayOf(p.settledAt));
    if (!slot) continue;
    const amount = BigInt(p.stablecoinAmount);
    slot.settled += amount;
    slot.count += 1;
    settled += amount;
    count += 1;
  }
  // Refunds count on the day the money went back (as a balance report does), whenever the
  // payment itself settled.
  for (const r of (await deps.refunds.succeededOf(accountId)).filter((x) => (x.livemode !== false) === livemode)) {
    const slot = days.get(dayOf(r.succeededAt ?? r.updatedAt));
    if (!slot) continue;
    slot.refunded += BigInt(r.stablecoinAmount);
    refunded += BigInt(r.stablecoinAmount);
  }
  return {
    from,
    to,
    currency: 'USDC',
    settled_count: count,
    settled: usdcDecimal(settled),
    refunded: usdcDecimal(refunded),
    net: usdcDecimal(settled - refunded),
    days: [...days].map(([day, v]) => ({ day, settled: usdcDecimal(v.settled), refunded: usdcDecimal(v.refunded), count: v.count })),
  };
}

export interface TimelineEntry {
  at: string;
  kind: 'created' | 'authorized' | 'settle_started' | 'settled' | 'failed' | 'expired' | 'canceled' | 'refund' | 'event' | 'delivery';
  title: string;
  detail?: string;
  link?: { href: string; text: string };
}

/** One payment, its events and their deliveries; undefined when it is not this account's. */
export async function paymentDetail(deps: WebDeps, accountId: string, id: string, livemode = true) {
  const stored = await deps.payments.getForAccount(accountId, id, livemode);
  if (!stored) return undefined;
  const p = stored as Row;
  const network = dashboardNetwork(deps);
  const { events, deliveries } = await deps.webhooks.ofPayment(accountId, p.id);
  const tx = txUrl(network, p.txHash);

  const timeline: TimelineEntry[] = [{ at: p.createdAt, kind: 'created', title: 'Payment created', detail: `Checkout session open until ${utcText(p.expiresAt)}` }];
  if (p.settledAt) {
    timeline.push({
      at: p.settledAt,
      kind: 'settled',
      title: 'Settled on-chain',
      detail: p.payer ? `Paid from ${p.payer}` : undefined,
      link: tx ? { href: tx, text: 'View transaction' } : undefined,
    });
  }
  if (p.authorizedAt) {
    timeline.push({
      at: p.authorizedAt,
      kind: 'authorized',
      title: 'Authorized: held in escrow',
      detail: `${usdcDecimal(p.stablecoinAmount)} USDC held${p.payer ? ` from ${p.payer}` : ''}${p.captureBefore ? `; voided automatically at ${utcText(p.captureBefore)} unless captured` : ''}`,
    });
  }
  if (p.status === 'failed') timeline.push({ at: p.updatedAt, kind: 'failed', title: 'Payment failed', detail: p.failureReason });
  if (p.status === 'expired') timeline.push({ at: p.expiresAt, kind: 'expired', title: 'Session expired', detail: 'Nothing was charged.' });
  if (p.canceledAt) timeline.push({ at: p.canceledAt, kind: 'canceled', title: 'Canceled', detail: p.cancellationReason });
  const refunds = await deps.refunds.ofPayment(accountId, p.id);
  for (const r of refunds) {
    const href = txUrl(network, r.txHash);
    const what = `${r.amount} ${r.currency} (${usdcDecimal(r.stablecoinAmount)} USDC) to ${r.to}${r.reason ? `: ${r.reason}` : ''}`;
    timeline.push({
      at: r.succeededAt ?? r.createdAt,
      kind: 'refund',
      title: r.status === 'succeeded' ? 'Refund succeeded' : r.status === 'failed' ? 'Refund failed' : 'Refund sent',
      detail: r.status === 'failed' && r.failureReason ? `${what}. ${r.failureReason}` : what,
      link: href ? { href, text: 'View transaction' } : undefined,
    });
  }
  const typeOf = new Map(events.map((e) => [e.id, e.type]));
  for (const e of events) timeline.push({ at: e.createdAt, kind: 'event', title: `Event ${e.type}`, detail: e.id });
  // Each delivery attempt of those events, so a missed webhook shows where it happened.
  for (const d of deliveries) {
    for (const a of d.attempts) {
      const answer = a.statusCode !== undefined ? `HTTP ${a.statusCode}` : (a.error ?? 'no answer');
      timeline.push({
        at: a.at,
        kind: 'delivery',
        title: a.succeeded ? 'Webhook delivered' : 'Webhook attempt failed',
        detail: `${typeOf.get(d.eventId) ?? 'event'} to ${d.url}: ${answer}`,
      });
    }
  }
  timeline.sort((a, b) => a.at.localeCompare(b.at));

  return {
    payment: {
      ...listItem(p, deps.payments.checkoutUrl(p.id)),
      rate: p.rate,
      merchant_name: p.merchantName ?? null,
      redirect_url: p.redirectUrl,
      payout_address: p.payoutAddress ?? null,
      webhook_url: p.webhookUrl ?? null,
      metadata: p.metadata ?? {},
      expires_at: p.expiresAt,
      payer: p.payer ?? null,
      payer_url: addressUrl(network, p.payer) ?? null,
      tx_hash: p.txHash ?? null,
      tx_url: tx ?? null,
      failure_reason: p.failureReason ?? null,
      canceled_at: p.canceledAt ?? null,
    },
    network: { chain_id: network.chainId, name: network.name, explorer_url: network.explorerUrl ?? null },
    refunds: refunds.map((r) => ({
      id: r.id,
      status: r.status,
      amount: r.amount,
      currency: r.currency,
      stablecoin_amount: usdcDecimal(r.stablecoinAmount),
      reason: r.reason ?? null,
      to: r.to,
      tx_hash: r.txHash ?? null,
      tx_url: txUrl(network, r.txHash) ?? null,
      failure_reason: r.failureReason ?? null,
      created_at: r.createdAt,
      succeeded_at: r.succeededAt ?? null,
    })),
    timeline,
    events: events
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((e) => ({
        id: e.id,
        type: e.type,
        created_at: e.createdAt,
        deliveries: deliveries
          .filter((d) => d.eventId === e.id)
          .map((d) => ({
            id: d.id,
            url: d.url,
            status: d.status,
            delivered_at: d.deliveredAt ?? null,
            next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt ?? null) : null,
            attempts: d.attempts.map((a) => ({
              at: a.at,
              succeeded: a.succeeded,
              status_code: a.statusCode ?? null,
              error: a.error ?? null,
              latency_ms: a.latencyMs,
            })),
          })),
      })),
  };
}
export type PaymentDetail = NonNullable<Awaited<ReturnType<typeof paymentDetail>>>;
