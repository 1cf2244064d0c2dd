import { z } from 'zod';
import { FxService, FxTable } from '../fx/rates.js';

/**
 * Where a firm quote's rates come from (docs/quotes.md). A source answers a whole table at
 * once, so one quote's two legs (source -> USDC -> recipient) always come from one snapshot.
 * The shipped table (data/fx-rates.json) is the default; `HttpRateSource` shows how a live
 * provider plugs in. A quote copies the figures it was priced at, so a later snapshot never
 * changes a quote already given.
 */
export interface RateSource {
  readonly name: string;
  /** The rates to price with now. Rejects when the provider cannot answer. */
  snapshot(): Promise<FxService>;
}

/** The shipped table (or any FxService): always answers, never changes by itself. */
export class TableRateSource implements RateSource {
  readonly name = 'table';
  constructor(private readonly fx: FxService) {}
  async snapshot(): Promise<FxService> {
    return this.fx;
  }
}

/**
 * A live provider's answer: units of each currency per 1 USD, as decimal strings, e.g.
 * `{"base":"USD","as_of":"2026-11-28T06:00:00Z","rates":{"NGN":"1545.20","KES":"129.10"}}`.
 */
export const ProviderRates = z.object({
  base: z.literal('USD'),
  as_of: z.string().min(1),
  rates: z.record(z.string().regex(/^[A-Z]{2,8}$/), z.string().regex(/^\d+(\.\d{1,8})?$/)),
});
export type ProviderRates = z.infer<typeof ProviderRates>;

export class RatesUnavailable extends Error {}

export interface HttpRateSourceOptions {
  url: string;
  /** The shipped table: currency metadata (decimals, symbols) and the set of currencies offered. */
  base: FxService;
  /** How long one answer is reused (default 30 s): a provider is asked at most once per period. */
  cacheMs?: number;
  /** Per-request deadline (default 5 s). */
  timeoutMs?: number;
  /** Extra request headers (e.g. the provider's API key). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * The adapter for a live provider over HTTP (GET `url` -> ProviderRates). Rates it gives replace
 * the table's; currencies it omits keep the table's rate (USD and USDC stay 1). Pegged stablecoin
 * (USDC) is never taken from the provider. Any failure (network, status, malformed body) rejects
 * with RatesUnavailable: a quote is then refused rather than priced at a stale rate silently.
 */
export class HttpRateSource implements RateSource {
  readonly name = 'http';
  private cached?: { at: number; fx: FxService };
  private inflight?: Promise<FxService>;

  constructor(private readonly opts: HttpRateSourceOptions) {}

  async snapshot(): Promise<FxService> {
    const now = (this.opts.now ?? Date.now)();
    if (this.cached && now - this.cached.at < (this.opts.cacheMs ?? 30_000)) return this.cached.fx;
    this.inflight ??= this.load(now).finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async load(at: number): Promise<FxService> {
    const doFetch = this.opts.fetch ?? fetch;
    let body: unknown;
    try {
      const res = await doFetch(this.opts.url, {
        headers: { accept: 'application/json', ...(this.opts.headers ?? {}) },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5_000),
      });
      if (!res.ok) throw new RatesUnavailable(`rate provider answered ${res.status}`);
      body = await res.json();
    } catch (e) {
      throw e instanceof RatesUnavailable ? e : new RatesUnavailable(`rate provider unreachable: ${(e as Error).message}`);
    }
    const parsed = ProviderRates.safeParse(body);
    if (!parsed.success) throw new RatesUnavailable('rate provider answered a malformed body');
    const base = this.opts.base.table;
    const currencies: FxTable['currencies'] = {};
    for (const [code, info] of Object.entries(base.currencies)) {
      const live = code === 'USD' || code === 'USDC' ? undefined : parsed.data.rates[code];
      currencies[code] = live && !/^0+(\.0+)?$/.test(live) ? { ...info, rate: live } : { ...info };
    }
    const fx = new FxService(FxTable.parse({ base: 'USD', asOf: parsed.data.as_of, currencies }));
    this.cached = { at, fx };
    return fx;
  }
}
