import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from a pooled CSPRNG buffer (as node's randomUUID does): one
// syscall per 4 KiB instead of one per id, which showed in the create-payment profile.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function nextByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Uniform base62 string from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Unguessable id: prefix + 24 base62 chars (~142 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(24)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
