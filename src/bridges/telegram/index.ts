import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { webhookCallback, type Bot } from 'grammy';
import { run, type RunnerHandle } from '@grammyjs/runner';
import type { BotContext, TelegramDeps } from './context.js';
import { ALLOWED_UPDATES, COMMANDS, createBot, type CreateBotOptions } from './bot.js';
import { notifyIncomingTransfers } from './notify.js';
import { WEBHOOK_PATH } from './webhook-route.js';

export { createBot } from './bot.js';
export type { TelegramDeps } from './context.js';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/**
 * How long the webhook request may wait for the update to be taken in. The work itself is
 * detached (tasks.ts); this bounds only the recording, so Telegram never sees a slow reply.
 */
const WEBHOOK_ACK_TIMEOUT_MS = 5_000;
/** How long shutdown waits for updates in flight (a confirm may be waiting for a receipt). */
const DRAIN_TIMEOUT_MS = 20_000;
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 5 * 60_000;

export interface TelegramBridge {
  mode: 'polling' | 'webhook';
  bot: Bot<BotContext>;
  /** Webhook mode: mount under /api (POST /api/telegram/webhook). */
  router?: Router;
  /** Connects to Telegram (getMe, then setWebhook or long polling); retries in the background on failure. */
  start(): Promise<void>;
  /** Stops polling, unsubscribes, waits for updates in flight. Idempotent. */
  stop(): Promise<void>;
}

function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * POST /telegram/webhook. The secret is checked here first so a refusal is a JSON 401 like
 * every other API error (grammY's own check answers `"unauthorized"` with express's default
 * text/html type); grammY checks it again. The API's express.json() has already parsed the
 * body, and grammY's express adapter reads the update from req.body.
 */
function webhookRouter(bot: Bot<BotContext>, secret: string): Router {
  const r = Router();
  const handle = webhookCallback(bot, 'express', {
    secretToken: secret,
    onTimeout: 'return',
    timeoutMilliseconds: WEBHOOK_ACK_TIMEOUT_MS,
  }) as unknown as RequestHandler;
  r.post(
    WEBHOOK_PATH,
    (req, res, next) => {
      if (!sameSecret(req.headers[SECRET_HEADER], secret)) {
        res.status(401).json({ error: { type: 'authentication_error', message: 'Missing or wrong X-Telegram-Bot-Api-Secret-Token.' } });
        return;
      }
      const body: unknown = req.body;
      if (!body || typeof body !== 'object' || !Number.isSafeInteger((body as { update_id?: unknown }).update_id)) {
        res.status(400).json({ error: { type: 'invalid_request_error', message: 'Expected a Telegram Update with an integer update_id.' } });
        return;
      }
      next();
    },
    handle,
  );
  return r;
}

/**
 * The Telegram bridge (DESIGN.md 3): undefined without TELEGRAM_BOT_TOKEN; webhook mode
 * when TELEGRAM_WEBHOOK_URL is set (TELEGRAM_WEBHOOK_SECRET is then required by config),
 * else long polling with @grammyjs/runner.
 */
export function createTelegramBridge(deps: TelegramDeps, opts: Pick<CreateBotOptions, 'botInfo'> = {}): TelegramBridge | undefined {
  const { TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_URL: webhookUrl, TELEGRAM_WEBHOOK_SECRET: secret } = deps.config;
  if (!token) return undefined;
  const mode = webhookUrl ? 'webhook' : 'polling';
  if (mode === 'webhook' && !secret) throw new Error('TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL');
  const { bot, inflight, log } = createBot(deps, { background: mode === 'webhook', ...opts });
  deps = { ...deps, logger: log };
  const router = mode === 'webhook' ? webhookRouter(bot, secret!) : undefined;

  let runner: RunnerHandle | undefined;
  let unsubscribe: (() => void) | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryIn = RETRY_MIN_MS;
  let stopped = false;
  let stopping: Promise<void> | undefined;

  const connect = async () => {
    await bot.init();
    if (stopped) return;
    if (mode === 'webhook') {
      await bot.api.setWebhook(webhookUrl!, { secret_token: secret!, allowed_updates: [...ALLOWED_UPDATES] });
    } else {
      // getUpdates is refused while a webhook is set (409); pending updates are kept.
      await bot.api.deleteWebhook();
      if (stopped) return;
      runner = run(bot, { runner: { silent: true, fetch: { allowed_updates: [...ALLOWED_UPDATES] } } });
      runner.task()?.catch((err: unknown) => log.error({ err }, 'Telegram long polling stopped'));
    }
    await bot.api.setMyCommands(COMMANDS).catch((err: unknown) => log.warn({ err }, 'setMyCommands failed'));
    log.info({ mode, bot: bot.botInfo.username }, 'Telegram bridge connected');
  };

  const attempt = async () => {
    retryTimer = undefined;
    try {
      await connect();
    } catch (err) {
      if (stopped) return;
      // Telegram down or misconfigured: the rest of the service keeps running; try again later.
      log.error({ err, retryInMs: retryIn }, 'Telegram bridge could not connect');
      retryTimer = setTimeout(() => void attempt(), retryIn);
      retryTimer.unref();
      retryIn = Math.min(retryIn * 2, RETRY_MAX_MS);
    }
  };

  return {
    mode,
    bot,
    ...(router ? { router } : {}),
    async start() {
      unsubscribe ??= notifyIncomingTransfers(deps, bot.api);
      await attempt();
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        clearTimeout(retryTimer);
        unsubscribe?.();
        // Aborts the pending getUpdates; resolves when the polling loop has ended.
        await Promise.resolve(runner?.stop()).catch(() => undefined);
        if (!(await inflight.drain(DRAIN_TIMEOUT_MS))) log.warn({ inflight: inflight.size }, 'Telegram updates still running at shutdown');
      })();
      return stopping;
    },
  };
}
