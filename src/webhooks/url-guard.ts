/**
 * Server-side request forgery guard for merchant-supplied webhook URLs. In production a
 * webhook URL must be https and every address its host resolves to must be a public
 * unicast address; the same check runs again at connect time (see `guardedLookup`) so a
 * DNS answer that changes after validation (rebinding) cannot reach internal services.
 */
import dns from 'node:dns';
import net from 'node:net';
import { fail, type Result } from '../lib/results.js';

type Cidr = readonly [prefix: readonly number[], bits: number];

// IPv4 ranges that are not public unicast: RFC 6890 special-purpose registry and friends.
const V4_BLOCKED: Cidr[] = [
  [[0, 0, 0, 0], 8], // "this network" / unspecified
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // CGNAT (shared address space)
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata lives here)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, incl. broadcast
];

// IPv6 ranges (bytes) that are never a merchant's public endpoint.
const V6_BLOCKED: Cidr[] = [
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48], // local-use NAT64
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64], // discard-only
  [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments (incl. Teredo)
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0xfc, 0x00], 7], // unique local
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated)
  [[0xff, 0x00], 8], // multicast
];

function inCidr(bytes: readonly number[], [prefix, bits]: Cidr): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (zone id dropped, trailing dotted quad supported); undefined if malformed. */
function v6Bytes(ip: string): number[] | undefined {
  let text = ip.split('%')[0]!.toLowerCase();
  let tail: number[] = [];
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    tail = v4Bytes(quad[2]!);
    text = quad[1]!.endsWith('::') ? quad[1]! : quad[1]!.slice(0, -1);
  }
  const want = quad ? 6 : 8;
  let groups: string[];
  if (text.includes('::')) {
    const [a = '', b = ''] = text.split('::');
    const ha = a ? a.split(':') : [];
    const hb = b ? b.split(':') : [];
    groups = [...ha, ...new Array<string>(Math.max(0, want - ha.length - hb.length)).fill('0'), ...hb];
  } else {
    groups = text.split(':');
  }
  if (groups.length !== want) return undefined;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push((n >> 8) & 0xff, n & 0xff);
  }
  return [...bytes, ...tail];
}

function blockedV4(bytes: readonly number[]): boolean {
  return V4_BLOCKED.some((c) => inCidr(bytes, c));
}

/**
 * True for every address a webhook must not reach: loopback, private, link-local, CGNAT,
 * multicast, unspecified, reserved and documentation ranges, in IPv4 and IPv6, including
 * IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64, 6to4). Non-IPs count as blocked.
 */
export function isBlockedAddress(ip: string): boolean {
  const family = net.isIP(ip.split('%')[0]!);
  if (family === 4) return blockedV4(v4Bytes(ip));
  if (family !== 6) return true;
  const b = v6Bytes(ip);
  if (!b || b.length !== 16) return true;
  const zeros = (n: number) => b.slice(0, n).every((x) => x === 0);
  // ::/96 covers :: and ::1 too (their embedded IPv4 is in 0.0.0.0/8).
  if (zeros(12)) return blockedV4(b.slice(12));
  if (zeros(10) && b[10] === 0xff && b[11] === 0xff) return blockedV4(b.slice(12)); // ::ffff:a.b.c.d
  if (inCidr(b, [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96])) return blockedV4(b.slice(12)); // NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return blockedV4(b.slice(2, 6)); // 6to4
  return V6_BLOCKED.some((c) => inCidr(b, c));
}

export type UrlCheckFailure = 'invalid_webhook_url';

export interface UrlCheckOptions {
  /** Production refuses non-https and non-public targets; development and test allow local receivers. */
  production: boolean;
  /** The request field named in the error. */
  param: string;
  /** Resolver (all addresses of a host name); node's dns.lookup by default. */
  resolve?: (hostname: string) => Promise<string[]>;
}

const defaultResolve = async (hostname: string) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Validates a webhook URL for storing (payment creation, default endpoint). */
export async function checkWebhookUrl(
  raw: string,
  opts: UrlCheckOptions,
): Promise<Result<{ url: string }, UrlCheckFailure>> {
  const bad = (why: string) => fail('invalid_webhook_url' as const, `${opts.param} ${why}`, opts.param);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad('must be a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return bad('must be an http(s) URL.');
  if (!opts.production) return { ok: true, url: raw };
  if (url.protocol !== 'https:') return bad('must use https.');
  const host = urlHost(url);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch {
      return bad(`host "${host}" could not be resolved.`);
    }
    if (addresses.length === 0) return bad(`host "${host}" could not be resolved.`);
  }
  const blocked = addresses.find(isBlockedAddress);
  if (blocked !== undefined) {
    return bad(`must point to a public address; "${host}" resolves to ${blocked}, a loopback, private, link-local or otherwise non-public address.`);
  }
  return { ok: true, url: raw };
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to non-public address ${address}`);
  }
}

/**
 * A `lookup` for http(s).request that refuses non-public answers, so the socket connects
 * only to an address that passed the check (no gap between checking and connecting).
 */
export function guardedLookup(
  resolveAll: typeof dns.lookup = dns.lookup,
): net.LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      const cb = callback as (e: Error | null, a: string | dns.LookupAddress[], f?: number) => void;
      if (err) return cb(err, '', 0);
      const list = addresses as unknown as dns.LookupAddress[];
      const blocked = list.find((a) => isBlockedAddress(a.address));
      if (blocked) return cb(new BlockedAddressError(hostname, blocked.address), '', 0);
      if (list.length === 0) return cb(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return cb(null, list);
      cb(null, list[0]!.address, list[0]!.family);
    });
  };
}
