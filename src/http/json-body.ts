/**
 * The API's JSON body read for the common request (a front route's): what `apiJsonBody()`
 * (express's JSON parser, strict, 100 kB) gives, without its per-request set-up (content-type
 * parsing twice, the charset decoder, raw-body's listeners), a few percent of a settle's CPU in
 * its profile (docs/performance.md, issue 23 sixth round). Only a request it reads exactly as the
 * parser does is taken (`plainJsonRequest`); anything else is left to express.
 */
import type { IncomingMessage } from 'node:http';

/** `apiJsonBody()`'s limit (express.json's '100kb'). */
const LIMIT = 100 * 1024;
/** application/json with no parameter but a UTF-8 charset: the parser's default, decoded the same. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset=(?:utf-8|"utf-8")\s*)?$/i;

/** True when the parser would read this request's body as UTF-8 JSON of a stated length within the limit. */
export function plainJsonRequest(req: IncomingMessage): boolean {
  const h = req.headers;
  const type = h['content-type'];
  const length = h['content-length'];
  if (type === undefined || length === undefined || h['transfer-encoding'] !== undefined || !PLAIN_JSON.test(type)) return false;
  const encoding = h['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  return Number(length) <= LIMIT;
}

/** The parser's errors as its error handler tells them apart (src/http/errors.ts). */
/** As body-parser's errors: with the text received (`body`), so the answer can tell valid JSON that is no object from broken JSON. */
const failed = (type: string, message: string, body?: string) => Object.assign(new Error(message), { status: 400, expose: true, type, ...(body === undefined ? {} : { body }) });

/** Reads a `plainJsonRequest`'s body as the parser does: an empty body is `{}`, a leading BOM is dropped, strict JSON. */
export function readJsonBody(req: IncomingMessage, done: (err: unknown, body?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  const finish = (err: unknown, body?: unknown) => {
    if (finished) return;
    finished = true;
    done(err, body);
  };
  req.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  req.on('aborted', () => finish(failed('request.aborted', 'request aborted')));
  req.on('error', (err) => finish(err));
  req.on('end', () => {
    if (received !== Number(req.headers['content-length'])) return finish(failed('request.size.invalid', 'request size did not match content length'));
    let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) return finish(undefined, {});
    // Strict: an object or an array, after JSON's own whitespace.
    const first = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/.exec(text)?.[1];
    if (first !== '{' && first !== '[') return finish(failed('entity.parse.failed', 'strict JSON: an object or an array', text));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return finish(failed('entity.parse.failed', 'malformed JSON', text));
    }
    finish(undefined, body);
  });
}

/** A UTF-16 surrogate with no partner: JSON can write one (`"\ud800"`), no UTF-8 text can hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * False when a string of a parsed body (a value or a key, at any depth) holds a lone surrogate.
 * PostgreSQL refuses such text (a 500 there, h17tour) while lowdb kept it, so the door refuses it
 * on both. Walked without recursion: a 100 kB body can nest 50,000 deep.
 */
export function wellFormedText(body: unknown): boolean {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return false;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return false;
        stack.push(item);
      }
    }
  }
  return true;
}

export const LONE_SURROGATE_MESSAGE = 'Text in the request must be valid Unicode: a \\uD800-\\uDFFF escape must be one half of a surrogate pair.';
