import type { IncomingMessage, ServerResponse } from 'node:http';

/** Seconds a client should wait before retrying while the service starts. */
export const STARTING_RETRY_AFTER_S = 2;
const MESSAGE = 'The service is starting; retry shortly.';

/**
 * Answers every request accepted before the app is attached (the socket listens first, so
 * PORT=0 yields the real port for PUBLIC_URL): liveness says up but not ready, everything else
 * is a 503 in its route family's error shape (interface 7) with Retry-After. Plain node:http, so
 * it answers before express, the store or the chain exist.
 */
export function startingHandler(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  // Unread request bodies are discarded; the connection stays usable for the retry.
  req.resume();
  res.setHeader('Cache-Control', 'no-store');
  if (path === '/healthz') return send(res, 200, { ok: true, ready: false });
  res.setHeader('Retry-After', String(STARTING_RETRY_AFTER_S));
  if (path === '/readyz') return send(res, 503, { ok: false, ready: false });
  if (path.startsWith('/api/checkout')) return send(res, 503, { ok: false, error: MESSAGE });
  if (path.startsWith('/api/agent') || path.startsWith('/api/chat')) return send(res, 503, { ok: false, reply: MESSAGE });
  send(res, 503, { error: { type: 'api_error', message: MESSAGE } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
