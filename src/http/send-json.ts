import type { ServerResponse } from 'node:http';

/**
 * A JSON answer written directly: what express's `res.json` sends here (same Content-Type,
 * length and body; the app has no ETag, JSON replacer or spaces) without its per-call lookups
 * (app settings, mime and charset parsing), which showed in the create's and the settle's
 * profiles (docs/performance.md, issue 23). Works on node's own response (a front route's).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  // Encoded once: its length is the header, and the socket takes the bytes as they are.
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}
