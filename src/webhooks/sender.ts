/**
 * One webhook POST. Uses node:http(s) directly so that redirects are never followed, the
 * response body is capped, and (in production) the socket can only connect to an address
 * that passed the URL guard at connect time.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, isBlockedAddress, urlHost } from './url-guard.js';

export const USER_AGENT = 'StablePay-Webhooks/1.0 (+https://github.com/stablepay)';
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Read at most this much of a response; keep the start of it in the attempt log. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const LOGGED_RESPONSE_BYTES = 1024;

export interface SendResult {
  ok: boolean;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  responseBody?: string;
  /** The request was cut short by our own shutdown (outcome unknown). */
  aborted?: boolean;
  /** A 429 or 503 answer's `Retry-After`, in milliseconds from now. */
  retryAfterMs?: number;
}

/** Longest `Retry-After` we wait for; a longer one waits this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from `nowMs`; undefined when unusable. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(v)) ms = Number(v) * 1000;
  else {
    // HTTP-dates start with the day name; Date.parse would also take "-5" as a year.
    if (!/^[A-Za-z]{3}/.test(v)) return undefined;
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

export interface SendOptions {
  headers: Record<string, string>;
  timeoutMs?: number;
  /** Refuse non-public addresses at connect time (production). */
  guard: boolean;
  signal?: AbortSignal;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};
const guardedAgents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup() }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup() }),
};

export function postWebhook(rawUrl: string, body: string, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return done({ ok: false, error: 'invalid URL' });
    }
    const isHttps = url.protocol === 'https:';
    if (!isHttps && url.protocol !== 'http:') return done({ ok: false, error: `unsupported protocol ${url.protocol}` });
    const host = urlHost(url);
    // A literal IP never goes through lookup, so check it here.
    if (opts.guard && net.isIP(host) && isBlockedAddress(host)) {
      return done({ ok: false, error: `refused: ${host} is not a public address` });
    }
    if (opts.signal?.aborted) return done({ ok: false, aborted: true, error: 'interrupted: service stopping' });

    const kind = isHttps ? 'https' : 'http';
    const req = (isHttps ? https : http).request(url, {
      method: 'POST',
      agent: (opts.guard ? guardedAgents : agents)[kind],
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'content-length': String(Buffer.byteLength(body)),
        ...opts.headers,
      },
    });
    timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, error: `timed out after ${opts.timeoutMs ?? DELIVERY_TIMEOUT_MS} ms` });
    }, opts.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    const onAbort = () => {
      req.destroy();
      done({ ok: false, aborted: true, error: 'interrupted: service stopping' });
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) => {
      opts.signal?.removeEventListener('abort', onAbort);
      done({ ok: false, error: describeError(err) });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = (note?: string) => {
        opts.signal?.removeEventListener('abort', onAbort);
        const text = Buffer.concat(chunks).subarray(0, LOGGED_RESPONSE_BYTES).toString('utf8');
        const ok = status >= 200 && status < 300;
        const location = status >= 300 && status < 400 ? res.headers.location : undefined;
        const error = ok
          ? undefined
          : location !== undefined
            ? `redirect to ${location} not followed (answer with a 2xx)`
            : note ?? `HTTP ${status}`;
        const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(headerText(res.headers['retry-after'])) : undefined;
        done({
          ok,
          statusCode: status,
          ...(error ? { error } : {}),
          ...(text ? { responseBody: text } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (chunks.length === 0 || received < LOGGED_RESPONSE_BYTES) chunks.push(chunk);
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          // Enough: the status decides; do not let a receiver stream at us.
          res.destroy();
          finish();
        }
      });
      res.on('end', () => finish());
      res.on('error', () => finish());
      res.on('close', () => finish());
    });
    req.end(body);
  });
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'EBLOCKEDADDRESS') return err.message;
  const code = err.code ? `${err.code}: ` : '';
  return `${code}${err.message}`.slice(0, 300);
}

const headerText = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);
