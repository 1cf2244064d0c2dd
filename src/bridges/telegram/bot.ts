import { Bot, type BotError } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import { autoRetry } from '@grammyjs/auto-retry';
import { sequentialize } from '@grammyjs/runner';
import type { BotContext, TelegramDeps } from './context.js';
import { dedupeUpdates } from './dedupe.js';
import { InFlight, handOff } from './tasks.js';
import { loadAccount } from './identity.js';
import { onboardingFeature } from './onboarding.js';
import { walletFeature } from './wallet.js';
import { historyFeature } from './history.js';
import { agentChatFeature } from './agent-chat.js';
import { redactingLogger } from './redact.js';

/** The updates the bot asks Telegram for (polling and webhook alike). */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/** Shown in the clients' command menu (setMyCommands). */
export const COMMANDS = [
  { command: 'start', description: 'Open your wallet' },
  { command: 'balance', description: 'Your balance' },
  { command: 'deposit', description: 'Add funds to your wallet' },
  { command: 'currency', description: 'Change your local currency' },
  { command: 'history', description: 'Recent activity' },
  { command: 'help', description: 'What I can do' },
];

export interface CreateBotOptions {
  /** Webhook mode: answer the request once the update is recorded and work afterwards. */
  background: boolean;
  /** Skips getMe (tests, or a known bot). */
  botInfo?: UserFromGetMe;
}

export interface TelegramBot {
  bot: Bot<BotContext>;
  inflight: InFlight;
  /** The bridge's logger (token-redacting). */
  log: TelegramDeps['logger'];
}

/**
 * The bot: dedupe on update_id, then (tracked, and in webhook mode detached from the
 * request) per-chat ordering, the sender's account, and one Composer per feature.
 */
export function createBot(deps: TelegramDeps, opts: CreateBotOptions): TelegramBot {
  const token = deps.config.TELEGRAM_BOT_TOKEN;
  if (!token) throw new Error('TELEGRAM_BOT_TOKEN is not set');
  const log = redactingLogger(deps.logger, token);
  deps = { ...deps, logger: log };
  const bot = new Bot<BotContext>(token, {
    ...(opts.botInfo ? { botInfo: opts.botInfo } : {}),
    client: {
      ...(deps.config.TELEGRAM_API_ROOT ? { apiRoot: deps.config.TELEGRAM_API_ROOT.replace(/\/+$/, '') } : {}),
    },
  });
  // 429 (flood control) waits retry_after and tries again; a bounded wait so nothing hangs for hours.
  bot.api.config.use(autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 60 }));
  // The runner retries failed polls silently (its own printing would show the token): say so here.
  bot.api.config.use(async (prev, method, payload, signal) => {
    try {
      return await prev(method, payload, signal);
    } catch (err) {
      if (method === 'getUpdates' && !signal?.aborted) log.warn({ err }, 'Telegram getUpdates failed; retrying');
      throw err;
    }
  });

  const inflight = new InFlight();
  bot.use(dedupeUpdates(deps.seenUpdates, log));
  bot.use(handOff(inflight, opts.background, log));

  const guarded = bot.errorBoundary((err) => onError(err, log));
  // Updates of one chat (and one user) run in order; different chats run concurrently.
  guarded.use(
    sequentialize((ctx: BotContext) => {
      const keys = [ctx.chat && `chat:${ctx.chat.id}`, ctx.from && `user:${ctx.from.id}`].filter((k): k is string => !!k);
      return keys.length ? keys : undefined;
    }),
  );
  guarded.use(loadAccount(deps));

  // A wallet is personal: the bot works in private chats only.
  const personal = guarded.chatType('private');
  personal.use(onboardingFeature(deps), walletFeature(deps), historyFeature(deps), agentChatFeature(deps));
  guarded
    .chatType(['group', 'supergroup'])
    .command(
      COMMANDS.map((c) => c.command),
      (ctx) => ctx.reply(`I only work in a private chat: https://t.me/${ctx.me.username}`),
    );
  // Every callback query gets an answer, even for a button nothing handles any more.
  guarded.on('callback_query', (ctx) => ctx.answerCallbackQuery({ text: 'This button no longer does anything.' }));

  // Polling only (runner): an error before the boundary (recording the update id failed). In webhook
  // mode the same error fails the request, so Telegram delivers the update again.
  bot.catch((err) => log.error({ err: err.error, updateId: err.ctx.update.update_id }, 'Telegram update failed'));
  return { bot, inflight, log };
}

async function onError(err: BotError<BotContext>, log: TelegramDeps['logger']): Promise<void> {
  const ctx = err.ctx;
  log.error({ err: err.error, updateId: ctx.update.update_id }, 'Telegram update failed');
  try {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: 'Something went wrong. Please try again.' });
    else if (ctx.chat) await ctx.reply('Sorry, something went wrong. Please try again in a moment.');
  } catch {
    // Already answered, or Telegram unreachable: the log line above is what is left.
  }
}
