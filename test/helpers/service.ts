import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config/config.js';
import { assertConforms, forgetDocument } from './openapi-conformance.js';
import { startService, type Service, type ServiceOptions } from '../../src/service.js';
import { databaseFor, dropDatabaseFor, targetsPostgres } from './pg-target.js';

export interface TestService extends Service {
  dataDir: string;
  api: string;
  config: Config;
  printed: string[];
  /** Stops the service; keeps the data dir unless `removeData`. */
  stop(opts?: { removeData?: boolean }): Promise<void>;
}

export async function tempDir(prefix = 'sp-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * A real service on a free loopback port with its own DATA_DIR (reuse `dataDir` to restart).
 * Under TEST_STORE=pg (the `pg` project) it runs on a PostgreSQL database of its own instead.
 */
export async function startTestService(
  env: Record<string, string> = {},
  opts: ServiceOptions & { dataDir?: string } = {},
): Promise<TestService> {
  const dataDir = opts.dataDir ?? (await tempDir());
  const database = targetsPostgres && env.DATABASE_URL === undefined ? { DATABASE_URL: await databaseFor(dataDir) } : {};
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir, ...database, ...env });
  const printed: string[] = [];
  const service = await startService(config, { print: (t) => printed.push(t), ...opts });
  // PUBLIC_URL defaults to the configured port (0); point it at the real one for checkout URLs.
  return {
    ...service,
    dataDir,
    api: `${service.url}/api`,
    config,
    printed,
    async stop({ removeData = false } = {}) {
      await service.close();
      forgetDocument(new URL(service.url).origin);
      if (removeData) {
        await rm(dataDir, { recursive: true, force: true });
        await dropDatabaseFor(dataDir);
      }
    },
  };
}

export interface Merchant {
  accountId: string;
  cookie: string;
  key: string;
  email: string;
}

let seq = 0;

/** Signs up a merchant through the API and creates a key: the real path a merchant takes. */
export async function createMerchant(api: string, name = 'Test Shop'): Promise<Merchant> {
  const email = `m${Date.now()}${++seq}@example.com`;
  const signup = await fetch(`${api}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery', name }),
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
  const body = (await signup.json()) as { account: { id: string } };
  const keyRes = await fetch(`${api}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ label: 'test' }),
  });
  const key = ((await keyRes.json()) as { key: { secret: string } }).key.secret;
  return { accountId: body.account.id, cookie, key, email };
}

/** fetch with JSON in and out. */
export async function call(
  url: string,
  init: { method?: string; key?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.cookie) headers.cookie = init.cookie;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep text */
  }
  await assertConforms(init.method ?? (init.body !== undefined ? 'POST' : 'GET'), url, res.status, res.headers.get('content-type'), body);
  return { status: res.status, body, headers: res.headers };
}
