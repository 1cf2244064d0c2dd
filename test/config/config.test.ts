import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration } from '../../src/config/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `npm start`'s command (`tsx src/main.ts`: tsx's own CLI) started straight with node, not
 * through `npx`, which loads the whole npm CLI first: 3-4 s more per start on the loaded 2-core
 * machine, and the bad-PORT test once ran past its 30 s under load. Collects how it ends.
 */
const TSX_CLI = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
function runMain(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A bad config must stop the start: if it ever listens instead, stop it and fail.
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

// Two processes of their own: started together.
describe.concurrent('npm start with a bad configuration', () => {
  it('exits 1 and names the variable on stderr (bad PORT)', async () => {
    const r = await runMain({ PORT: 'not-a-port', DATA_DIR: path.join(root, '.tmp', 'never-created') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Invalid configuration/);
    expect(r.stderr).toMatch(/PORT/);
    expect(r.stdout).not.toMatch(/running at/);
  });

  it('exits 1 for an out-of-range PORT and a bad LOG_LEVEL, naming both', async () => {
    const r = await runMain({ PORT: '70000', LOG_LEVEL: 'loud' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PORT/);
    expect(r.stderr).toMatch(/LOG_LEVEL/);
  });

  it('exits 1 for a bad POLICY_BREAKER, saying the form it expects (h17policy)', async () => {
    const r = await runMain({ POLICY_BREAKER: '5/10m', DATA_DIR: path.join(root, '.tmp', 'never-created') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/POLICY_BREAKER: expected "<count>\/<window>\/<cool-down>", e\.g\. "5\/10m\/15m"/);
    expect(r.stdout).not.toMatch(/running at/);
  });
});

describe('loadConfig', () => {
  const fail = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('has the documented defaults (DESIGN.md 8)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      PUBLIC_URL: 'http://localhost:3000',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      production: false,
      publicUrlExplicit: false,
      AGENT_RATE_LIMIT: { limit: 30, windowMs: 60_000 },
      ANTHROPIC_MODEL: expect.any(String),
    });
    expect(c.DATA_DIR).toBe(path.resolve('./data'));
    expect(c.WEBHOOK_RETRY_SCHEDULE).toEqual([
      0, 30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 43_200_000, 86_400_000, 86_400_000,
    ]);
    // Issue 15: retries span at least 3 days by default.
    expect(c.WEBHOOK_RETRY_SCHEDULE.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3 * 86_400_000);
    expect(c.CHAIN_RPC_URL).toBeUndefined();
    expect(c.ANTHROPIC_API_KEY).toBeUndefined();
    expect(c.TELEGRAM_BOT_TOKEN).toBeUndefined();
  });

  it('derives PUBLIC_URL from PORT, and trims a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080');
    const c = loadConfig({ PUBLIC_URL: 'https://pay.example.com/' });
    expect(c.PUBLIC_URL).toBe('https://pay.example.com');
    expect(c.publicUrlExplicit).toBe(true);
  });

  it('treats blank optional variables as unset', () => {
    const c = loadConfig({ ANTHROPIC_API_KEY: '  ', TELEGRAM_BOT_TOKEN: '', PUBLIC_URL: '' });
    expect(c.ANTHROPIC_API_KEY).toBeUndefined();
    expect(c.TELEGRAM_BOT_TOKEN).toBeUndefined();
    expect(c.PUBLIC_URL).toBe('http://localhost:3000');
  });

  it('rejects bad values, naming each variable', () => {
    expect(fail({ PORT: 'abc' })).toMatch(/PORT/);
    expect(fail({ PORT: '-1' })).toMatch(/PORT/);
    expect(fail({ PUBLIC_URL: 'not a url' })).toMatch(/PUBLIC_URL/);
    expect(fail({ NODE_ENV: 'staging' })).toMatch(/NODE_ENV/);
    expect(fail({ TOKEN_ADDRESS: '0x123' })).toMatch(/TOKEN_ADDRESS/);
    expect(fail({ RELAYER_PRIVATE_KEY: 'abc' })).toMatch(/RELAYER_PRIVATE_KEY/);
    expect(fail({ WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toMatch(/WEBHOOK_RETRY_SCHEDULE/);
    expect(fail({ AGENT_RATE_LIMIT: 'lots' })).toMatch(/AGENT_RATE_LIMIT/);
    expect(fail({ EXPIRY_SWEEP_INTERVAL: 'often' })).toMatch(/EXPIRY_SWEEP_INTERVAL/);
  });

  it('requires the whole set for a real network, and a secret for Telegram webhook mode', () => {
    expect(fail({ CHAIN_RPC_URL: 'https://rpc.example' })).toMatch(/CHAIN_ID, TOKEN_ADDRESS and RELAYER_PRIVATE_KEY/);
    const full = loadConfig({
      CHAIN_RPC_URL: 'https://rpc.example',
      CHAIN_ID: '84532',
      TOKEN_ADDRESS: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      RELAYER_PRIVATE_KEY: '0x' + '1'.repeat(64),
    });
    expect(full.CHAIN_ID).toBe(84532);
    expect(fail({ TELEGRAM_WEBHOOK_URL: 'https://bot.example/hook' })).toMatch(/TELEGRAM_WEBHOOK_SECRET/);
  });

  it("test mode's network: all four TEST_CHAIN_* or none, only beside a real network, never the live chain id", () => {
    const live = { CHAIN_RPC_URL: 'https://rpc.example', CHAIN_ID: '8453', TOKEN_ADDRESS: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', RELAYER_PRIVATE_KEY: '0x' + '1'.repeat(64) };
    const test = { TEST_CHAIN_RPC_URL: 'https://sepolia.example', TEST_CHAIN_ID: '84532', TEST_TOKEN_ADDRESS: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', TEST_RELAYER_PRIVATE_KEY: '0x' + '2'.repeat(64) };
    const both = loadConfig({ ...live, ...test });
    expect(both).toMatchObject({ TEST_CHAIN_RPC_URL: 'https://sepolia.example', TEST_CHAIN_ID: 84532, TEST_TOKEN_ADDRESS: test.TEST_TOKEN_ADDRESS });
    // None: an embedded anvil serves test mode (docs/test-mode.md).
    expect(loadConfig(live).TEST_CHAIN_RPC_URL).toBeUndefined();
    expect(fail({ ...live, TEST_CHAIN_RPC_URL: test.TEST_CHAIN_RPC_URL })).toMatch(/TEST_CHAIN_ID: .*missing: TEST_CHAIN_ID, TEST_TOKEN_ADDRESS, TEST_RELAYER_PRIVATE_KEY/);
    expect(fail({ ...live, ...test, TEST_RELAYER_PRIVATE_KEY: '' })).toMatch(/TEST_RELAYER_PRIVATE_KEY: .*all of/);
    expect(fail({ ...live, ...test, TEST_TOKEN_ADDRESS: '0x12' })).toMatch(/TEST_TOKEN_ADDRESS: must be a 0x address/);
    expect(fail(test)).toMatch(/TEST_CHAIN_RPC_URL: .*CHAIN_RPC_URL/);
    expect(fail({ ...live, ...test, TEST_CHAIN_ID: '8453' })).toMatch(/TEST_CHAIN_ID: must differ from CHAIN_ID/);
  });

  it('parses durations and rate limits', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('0')).toBe(0);
    expect(loadConfig({ AGENT_RATE_LIMIT: '100/10s' }).AGENT_RATE_LIMIT).toEqual({ limit: 100, windowMs: 10_000 });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,10ms,20ms' }).WEBHOOK_RETRY_SCHEDULE).toEqual([0, 10, 20]);
    expect(() => parseDuration('1 week')).toThrow();
  });

  it('treats a blank PORT as unset (3000), not as 0 (a random port)', () => {
    expect(loadConfig({ PORT: '' }).PORT).toBe(3000);
    expect(loadConfig({ PORT: '  ' }).PUBLIC_URL).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '0' }).PORT).toBe(0);
  });

  it('refuses intervals and timeouts a timer cannot run (0, or over 2^31-1 ms: Node would fire every 1 ms)', () => {
    for (const name of ['EXPIRY_SWEEP_INTERVAL', 'RECONCILE_INTERVAL', 'SETTLEMENT_CONFIRM_TIMEOUT']) {
      expect(fail({ [name]: '0' })).toMatch(new RegExp(`${name}: must be more than 0`));
      expect(fail({ [name]: '30d' })).toMatch(new RegExp(`${name}: must be at most`));
      expect(loadConfig({ [name]: '24d' })[name as 'RECONCILE_INTERVAL']).toBe(24 * 86_400_000);
    }
    expect(loadConfig({ RECONCILE_INTERVAL: '200ms' }).RECONCILE_INTERVAL).toBe(200);
  });

  it('production follows NODE_ENV', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).production).toBe(true);
  });

  it('POLICY_BREAKER: N/window/cool-down, default 5/10m/15m (DESIGN section 11)', () => {
    expect(loadConfig({}).POLICY_BREAKER).toEqual({ max_failures: 5, window_seconds: 600, cooldown_seconds: 900 });
    expect(loadConfig({ POLICY_BREAKER: '3/30s/2h' }).POLICY_BREAKER).toEqual({ max_failures: 3, window_seconds: 30, cooldown_seconds: 7200 });
    for (const bad of ['5', '5/10m', '0/10m/15m', 'x/10m/15m', '5/ten/15m', '5/10m/25h', '5/10m/15m/1']) {
      expect(() => loadConfig({ POLICY_BREAKER: bad }), bad).toThrow(/POLICY_BREAKER: expected "<count>\/<window>\/<cool-down>"/);
    }
  });

  it('CLAIM_TTL: at least 1m, seconds only under NODE_ENV=test (the expiry test through the doors)', () => {
    expect(() => loadConfig({ CLAIM_TTL: '10s' })).toThrow(/CLAIM_TTL: must be at least 1m/);
    expect(() => loadConfig({ NODE_ENV: 'production', CLAIM_TTL: '59s' })).toThrow(ConfigError);
    expect(loadConfig({ NODE_ENV: 'test', CLAIM_TTL: '10s' }).CLAIM_TTL).toBe(10_000);
    expect(() => loadConfig({ NODE_ENV: 'test', CLAIM_TTL: '500ms' })).toThrow(/at least 1s/);
    expect(loadConfig({ CLAIM_TTL: '1m' }).CLAIM_TTL).toBe(60_000);
  });
});
