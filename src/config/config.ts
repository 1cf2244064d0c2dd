import { z } from 'zod';
import path from 'node:path';

/** Parses "30s", "2m", "1h", "500ms" or a bare number of milliseconds ("0"). */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new Error(`not a duration: "${text}"`);
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return n * factor;
}

const Duration = z.string().transform((s, ctx) => {
  try {
    return parseDuration(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** Node timers take 1 ms to 2^31-1 ms (about 24.8 days); outside that range they fire every 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;
/** A duration that drives a timer (an interval or a wait): 0 or more than ~24 days is refused. */
const TimerDuration = Duration.pipe(
  z
    .number()
    .min(1, 'must be more than 0')
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (about 24 days)`),
);

/** Webhook delivery attempts (DESIGN.md 10: a horizon of at least 3 days). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '0,30s,2m,10m,1h,3h,6h,12h,12h,24h,24h';

const RetrySchedule = z.string().transform((s, ctx) => {
  try {
    const steps = s.split(',').map((p) => parseDuration(p));
    if (steps.length === 0) throw new Error('empty schedule');
    return steps;
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `expected a comma-separated list of durations like "0,30s,2m": ${(e as Error).message}` });
    return z.NEVER;
  }
});

const RateLimit = z.string().transform((s, ctx) => {
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)\s*$/.exec(s);
  if (!m || Number(m[1]) < 1) {
    ctx.addIssue({ code: 'custom', message: 'expected "<count>/<window>", e.g. "30/min" or "100/10s"' });
    return z.NEVER;
  }
  const per = m[2] ? Number(m[2]) : 1;
  const unitMs = m[3]!.startsWith('s') ? 1_000 : m[3]!.startsWith('m') ? 60_000 : 3_600_000;
  return { limit: Number(m[1]), windowMs: per * unitMs };
});

/**
 * POLICY_BREAKER (DESIGN section 11): `N/window/cool-down`, e.g. "5/10m/15m": N refusals or failures
 * of one API key's money-moving calls within the window pause that key for the cool-down.
 */
export const PolicyBreakerSetting = z.string().transform((s, ctx) => {
  const parts = s.split('/');
  const bad = (why: string) => {
    ctx.addIssue({ code: 'custom', message: `expected "<count>/<window>/<cool-down>", e.g. "5/10m/15m": ${why}` });
    return z.NEVER;
  };
  if (parts.length !== 3 || !/^\s*\d+\s*$/.test(parts[0]!)) return bad(`"${s}"`);
  const max = Number(parts[0]);
  if (max < 1 || max > 1000) return bad('the count must be 1 to 1000');
  let windowMs: number;
  let coolMs: number;
  try {
    windowMs = parseDuration(parts[1]!);
    coolMs = parseDuration(parts[2]!);
  } catch (e) {
    return bad((e as Error).message);
  }
  if (windowMs < 1_000 || windowMs > 86_400_000 || coolMs < 1_000 || coolMs > 86_400_000) return bad('the window and the cool-down must be 1s to 24h');
  return { max_failures: max, window_seconds: Math.ceil(windowMs / 1000), cooldown_seconds: Math.ceil(coolMs / 1000) };
});

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const EnvSchema = z.object({
  // A blank PORT is unset (3000), as for the optional variables; z.coerce would make it 0 (a random port).
  PORT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  DATA_DIR: z.string().min(1).default('./data'),
  /** postgres://… selects the PostgreSQL store (docs/store.md); unset keeps lowdb under DATA_DIR. */
  DATABASE_URL: optionalString.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional()),
  /** Connections per instance to PostgreSQL. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** Longest a request waits for a free pool connection before it answers 503 (docs/store.md). */
  DATABASE_POOL_TIMEOUT: TimerDuration.default(parseDuration('10s')),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CHAIN_RPC_URL: optionalString.pipe(z.url().optional()),
  CHAIN_ID: z.coerce.number().int().positive().optional(),
  /** Loopback port of the embedded anvil (unset: any free one); lets a benchmark reach the chain the service started. */
  ANVIL_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  TOKEN_ADDRESS: optionalString.pipe(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address').optional()),
  RELAYER_PRIVATE_KEY: optionalString.pipe(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex key').optional()),
  /**
   * Test mode's own network beside a real one (docs/test-mode.md, "Where test mode settles"): all
   * four or none. None with CHAIN_RPC_URL set: an embedded anvil is started for test mode.
   */
  TEST_CHAIN_RPC_URL: optionalString.pipe(z.url().optional()),
  TEST_CHAIN_ID: z.coerce.number().int().positive().optional(),
  TEST_TOKEN_ADDRESS: optionalString.pipe(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address').optional()),
  TEST_RELAYER_PRIVATE_KEY: optionalString.pipe(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex key').optional()),
  WALLET_MNEMONIC: optionalString,
  /** Private EC P-256 JWK (JSON) that signs approval receipts; unset -> generated into DATA_DIR/secrets.json (docs/receipts.md). */
  RECEIPT_SIGNING_KEY: optionalString,
  /** Network name shown to payers; unset -> known by CHAIN_ID, else "Chain <id>" (docs/checkout.md). */
  CHAIN_NAME: optionalString.pipe(z.string().max(60).optional()),
  /** Block explorer base URL (tx links: `<url>/tx/<hash>`); unset -> known by CHAIN_ID, none for the embedded chain. */
  CHAIN_EXPLORER_URL: optionalString.pipe(z.url().optional()),
  /** Blocks per eth_getLogs request when looking up an authorization's transaction (RPC providers cap the range). */
  CHAIN_LOG_SCAN_BLOCKS: z.coerce.number().int().positive().default(10_000),
  /** How far back such a lookup goes when nothing narrower is known. */
  CHAIN_LOG_MAX_LOOKBACK_BLOCKS: z.coerce.number().int().positive().default(1_000_000),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_MODEL: z.string().min(1).default('claude-sonnet-4-5'),
  ANTHROPIC_BASE_URL: optionalString.pipe(z.url().optional()),
  TELEGRAM_BOT_TOKEN: optionalString,
  TELEGRAM_WEBHOOK_URL: optionalString.pipe(z.url().optional()),
  TELEGRAM_WEBHOOK_SECRET: optionalString,
  TELEGRAM_API_ROOT: optionalString.pipe(z.url().optional()),
  /** HMAC key binding MPP challenges (docs/x402.md "MPP"); at least 32 bytes. Unset: a random key per process. */
  MPP_SECRET_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 bytes').optional()),
  // 11 attempts over about 3 days 10 hours (issue 15: at least 3 days), each retry with up to 10% jitter.
  WEBHOOK_RETRY_SCHEDULE: RetrySchedule.default(DEFAULT_WEBHOOK_RETRY_SCHEDULE.split(',').map(parseDuration)),
  WEBHOOK_SECRET_OVERLAP: Duration.default(parseDuration('24h')),
  /** How often each instance picks up pending deliveries it has no runner for (another instance's, after a crash). */
  WEBHOOK_RESCAN_INTERVAL: TimerDuration.default(parseDuration('30s')),
  AGENT_RATE_LIMIT: RateLimit.default({ limit: 30, windowMs: 60_000 }),
  /** Overall deadline of one Claude agent turn (all model calls and tools); past it the turn answers 503. */
  AGENT_TURN_TIMEOUT: TimerDuration.default(parseDuration('45s')),
  EXPIRY_SWEEP_INTERVAL: TimerDuration.default(parseDuration('15s')),
  /** How long a settle call waits for the receipt before leaving the payment `processing`. */
  SETTLEMENT_CONFIRM_TIMEOUT: TimerDuration.default(parseDuration('60s')),
  /**
   * The chain's worst delay beyond the confirm timeout: until both have passed since a settle
   * attempt started (and while its instance lives), no other instance judges it (docs/settlement.md).
   */
  SETTLEMENT_CHAIN_DELAY: TimerDuration.default(parseDuration('30s')),
  /** x402 auth-capture (manual capture): how long an authorization may be held before it is voided automatically (its captureDeadline). */
  AUTH_CAPTURE_HOLD: Duration.default(parseDuration('7d')),
  /** How long after the capture deadline a captured amount can still be refunded through the escrow (its refundDeadline). */
  AUTH_CAPTURE_REFUND_WINDOW: Duration.default(parseDuration('30d')),
  /** How often expired holds are voided and interrupted authorizations resolved from the escrow. */
  AUTH_CAPTURE_SWEEP_INTERVAL: TimerDuration.default(parseDuration('15s')),
  /** How often the settlement reconciler resolves `processing` payments from the chain. */
  RECONCILE_INTERVAL: TimerDuration.default(parseDuration('30s')),
  /**
   * How long a transfer, bill or market stake must sit untouched before the `reconcile:money` pass
   * retries it. Safe at any value (each move has one owner in the attempt ledger, issue 21); the
   * default keeps the pass off moves still in their own request.
   */
  MONEY_RECONCILE_IDLE: Duration.default(parseDuration('2m')),
  /** How often the deposit watcher looks for transfers into checkout deposit addresses (docs/settlement.md). */
  DEPOSIT_WATCH_INTERVAL: TimerDuration.default(parseDuration('5s')),
  /** How long after a session ends its deposit address is still watched (late money is refunded). */
  DEPOSIT_WATCH_GRACE: Duration.default(parseDuration('24h')),
  /** On SIGTERM: how long requests in flight may take to finish before their connections are cut (docs/deploy.md). */
  SHUTDOWN_GRACE: TimerDuration.default(parseDuration('10s')),
  /** Bearer token for `GET /metrics` (docs/metrics.md); unset: the endpoint answers 404 and nothing is counted. */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Under this native balance (in ether, e.g. "0.05") the relayer is logged as low on gas and flagged on /readyz. */
  RELAYER_MIN_GAS_BALANCE: z
    .string()
    .trim()
    .regex(/^\d+(\.\d{1,18})?$/, 'must be an amount of ether such as "0.05"')
    .default('0.01'),
  /** The spend policies' circuit breaker per API key (docs/policies.md); an account policy's `breaker` overrides it. */
  POLICY_BREAKER: PolicyBreakerSetting.default({ max_failures: 5, window_seconds: 600, cooldown_seconds: 900 }),
  /** How long a firm quote holds its rate (docs/quotes.md). */
  QUOTE_TTL: TimerDuration.default(parseDuration('60s')),
  /** How long a claim link waits for its recipient before the money goes back to the sender (docs/claims.md). */
  /** At least 1m; NODE_ENV=test allows seconds so the expiry can be tested through the doors. */
  CLAIM_TTL: Duration.pipe(z.number().min(1_000, 'must be at least 1s')).default(parseDuration('7d')),
  /** Fault injection for the kill -9 tests (NODE_ENV=test only): the claim step at which the process SIGKILLs itself. */
  FAULT_CLAIM_STEP: optionalString,
  /** Fault injection for the auth-capture kill -9 test (NODE_ENV=test only): `authorize-sent` or `authorize-mined`. */
  FAULT_AUTH_CAPTURE_STEP: optionalString,
  /** A live rate provider (docs/quotes.md, "Live rates"); unset: the shipped table data/fx-rates.json. */
  FX_RATES_URL: optionalString.pipe(z.url().optional()),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config extends Omit<Env, 'PUBLIC_URL' | 'DATA_DIR'> {
  PUBLIC_URL: string;
  DATA_DIR: string;
  production: boolean;
  /** False when PUBLIC_URL was derived from PORT (then it follows the port actually bound). */
  publicUrlExplicit: boolean;
}

export class ConfigError extends Error {}

/** Validates the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const chainVars = [e.CHAIN_RPC_URL, e.CHAIN_ID, e.TOKEN_ADDRESS, e.RELAYER_PRIVATE_KEY];
  if (e.CHAIN_RPC_URL && chainVars.some((v) => v === undefined)) {
    throw new ConfigError(
      'Invalid configuration:\n  CHAIN_RPC_URL: a real network also needs CHAIN_ID, TOKEN_ADDRESS and RELAYER_PRIVATE_KEY',
    );
  }
  const testVars = { TEST_CHAIN_RPC_URL: e.TEST_CHAIN_RPC_URL, TEST_CHAIN_ID: e.TEST_CHAIN_ID, TEST_TOKEN_ADDRESS: e.TEST_TOKEN_ADDRESS, TEST_RELAYER_PRIVATE_KEY: e.TEST_RELAYER_PRIVATE_KEY };
  const missing = Object.entries(testVars).filter(([, v]) => v === undefined).map(([k]) => k);
  if (missing.length > 0 && missing.length < 4) {
    throw new ConfigError(`Invalid configuration:\n  ${missing[0]}: test mode's network needs all of TEST_CHAIN_RPC_URL, TEST_CHAIN_ID, TEST_TOKEN_ADDRESS and TEST_RELAYER_PRIVATE_KEY (missing: ${missing.join(', ')})`);
  }
  if (missing.length === 0 && !e.CHAIN_RPC_URL) {
    throw new ConfigError('Invalid configuration:\n  TEST_CHAIN_RPC_URL: a test network is for a deployment with a real network (CHAIN_RPC_URL); on the embedded chain alone both modes use it');
  }
  // Test mode must never settle on the live network (docs/test-mode.md).
  if (missing.length === 0 && e.TEST_CHAIN_ID === e.CHAIN_ID) {
    throw new ConfigError('Invalid configuration:\n  TEST_CHAIN_ID: must differ from CHAIN_ID (test mode never settles on the live network)');
  }
  if (e.CLAIM_TTL < 60_000 && e.NODE_ENV !== 'test') {
    throw new ConfigError('Invalid configuration:\n  CLAIM_TTL: must be at least 1m');
  }
  if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:\n  TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_WEBHOOK_URL is set');
  }
  return {
    ...e,
    PUBLIC_URL: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    DATA_DIR: path.resolve(e.DATA_DIR),
    production: e.NODE_ENV === 'production',
    publicUrlExplicit: e.PUBLIC_URL !== undefined,
  };
}
