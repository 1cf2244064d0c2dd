import { Composer, InlineKeyboard } from 'grammy';
import type { PendingActionView, TurnOutcome } from '../../agent/agent.js';
import { pendingAskAt } from '../../agent/index.js';
import type { BotContext, TelegramDeps } from './context.js';
import { tooManyTurnsReply } from '../../limits/agent-turns.js';
import { clip, clipAnswer, isNotModified, requireAccount } from './ui.js';
import { rememberLanguage } from './history.js';

/** Same bound as the HTTP doors (POST /api/agent/settle, /api/chat). */
export const MESSAGE_MAX_CHARS = 500;

/**
 * Callback data carries only the pending action's id: "c:act_…" confirms, "x:act_…" cancels
 * (about 30 bytes, well within Telegram's 64). The agent checks the id belongs to the tapper.
 */
export const confirmData = (id: string) => `c:${id}`;
export const cancelData = (id: string) => `x:${id}`;
const ACTION_DATA = /^([cx]):(act_[0-9A-Za-z]{10,64})$/;

export function pendingKeyboard(id: string): InlineKeyboard {
  return new InlineKeyboard().text('✅ Confirm', confirmData(id)).text('✖ Cancel', cancelData(id));
}

function expiresText(iso: string): string {
  return `${iso.slice(11, 16)} UTC`;
}

/** The exact stored action and how to answer it, in the language of the turn's reply (the agent read it). */
export function pendingText(p: PendingActionView, lang?: TurnOutcome['lang']): string {
  return `${p.description}\n\n${pendingAskAt(lang, expiresText(p.expires_at))}`;
}

/** A success restates the whole action in the tool's exact words; anything else keeps the action in view. */
function outcomeText(description: string, result: TurnOutcome): string {
  if (result.ok && result.action !== 'none') return clip(`✅ ${result.reply}`);
  return clip(`${description}\n\n${result.ok ? '✖' : '❌'} ${result.reply}`);
}

/** Quoted or forwarded text given to the agent as data: enough to answer about it, bounded. */
const QUOTED_MAX_CHARS = 1000;

type IncomingText = {
  text: string;
  forward_origin?: unknown;
  /** Sent through a bot's inline mode ("@somebot …"): the bot wrote it, not the person. */
  via_bot?: unknown;
  reply_to_message?: { text?: string; caption?: string };
  quote?: { text: string };
};

/**
 * Which words are the person's (rule 2, docs/agent.md "Grounding"): a forwarded message
 * (`forward_origin`) is someone else's words, all of it; the message replied to
 * (`reply_to_message`, or the part of it the person quoted, `quote`) is data beside their own
 * reply. Neither is ever read as an instruction, and no money-moving argument may come from it. A
 * message sent through a bot's inline mode (`via_bot`, "@somebot send 500…") is that bot's text, whoever
 * tapped it: quoted, as a forwarded one.
 */
export function personsWords(m: IncomingText): { message: string; quoted: string[] } {
  const quoted: string[] = [];
  const add = (t: string | undefined) => {
    if (t?.trim()) quoted.push([...t].slice(0, QUOTED_MAX_CHARS).join(''));
  };
  const forwarded = m.forward_origin !== undefined || m.via_bot !== undefined;
  if (forwarded) add(m.text);
  add(m.quote?.text ?? m.reply_to_message?.text ?? m.reply_to_message?.caption);
  return { message: forwarded ? '' : m.text, quoted };
}

/** Plain text -> an agent turn (channel "telegram"); Confirm / Cancel buttons -> confirm / cancel. */
export function agentChatFeature(deps: TelegramDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();
  // The same per-account counter as POST /api/agent/settle and /api/chat: a turn here spends the HTTP budget too.
  const limiter = deps.agentTurns;

  // A photo's or document's caption is the person's words like a text (a forwarded one is quoted, as a forwarded text).
  const turn = async (ctx: BotContext, incoming: IncomingText) => {
    const text = incoming.text;
    const account = await requireAccount(ctx);
    if (!account) return;
    if (text.trim().length === 0) return;
    const { message, quoted } = personsWords(incoming);
    // The bound is on the person's own words; a long forwarded message is data, clipped.
    if ([...message].length > MESSAGE_MAX_CHARS) {
      return void (await ctx.reply(`Please keep messages under ${MESSAGE_MAX_CHARS} characters.`));
    }
    // What they wrote in is what /history and the other wordless commands answer in next.
    await rememberLanguage(deps, account, message);
    const allowed = await limiter.take(account.id);
    if (!allowed.ok) return void (await ctx.reply(tooManyTurnsReply(allowed.retryAfterSeconds)));
    // Best effort: the turn may take a few seconds (model, chain reads).
    await ctx.replyWithChatAction('typing').catch(() => undefined);
    const result = await deps.agent.runTurn({
      accountId: account.id,
      message,
      ...(quoted.length ? { quoted } : {}),
      channel: 'telegram',
      requestId: `tg_${ctx.update.update_id}`,
    });
    const pending = result.pending;
    if (pending && pending.status === 'pending') {
      // Held by a spend policy's approval threshold: the reply names the rule (issue 24), so say it, not the plain ask.
      const text = result.reason === 'approval_required' ? result.reply : pendingText(pending, result.lang);
      return void (await ctx.reply(clip(text), { reply_markup: pendingKeyboard(pending.id) }));
    }
    await ctx.reply(clip(result.reply));
  };

  c.on('message:text', async (ctx) => {
    if (ctx.message.text.startsWith('/')) return void (await ctx.reply('I don\'t know that command. /help lists what I can do.'));
    await turn(ctx, ctx.message);
  });
  c.on('message:caption', (ctx) => turn(ctx, { ...ctx.message, text: ctx.message.caption }));
  // A voice note, a sticker, a photo without words: said, not silently dropped (nothing is transcribed or read from media).
  c.on(['message:voice', 'message:audio', 'message:video_note', 'message:sticker', 'message:photo', 'message:video', 'message:document', 'message:animation'], async (ctx) => {
    if (!(await requireAccount(ctx))) return;
    await ctx.reply('I can only read text: type what you want to do (for example "send 5,000 KES to @amina"), or add it as a caption.');
  });

  c.callbackQuery(ACTION_DATA, async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    const [, op, actionId] = ctx.match as RegExpMatchArray & [string, 'c' | 'x', string];
    const before = await deps.agent.getPending(account.id, actionId);
    if (!before) {
      // Someone else's button (a forwarded message) or an unknown id: nothing to do, nothing to show.
      return void (await ctx.answerCallbackQuery({ text: 'There is no pending action of yours with that button.', show_alert: true }));
    }
    const edit = (text: string) =>
      ctx.editMessageText(text).catch((err: unknown) => {
        if (!isNotModified(err)) deps.logger.warn({ err }, 'could not edit the confirmation message');
      });

    if (op === 'x') {
      const result = await deps.agent.cancel(account.id, actionId);
      await ctx.answerCallbackQuery({ text: clipAnswer(result.reply) });
      if (before.status === 'pending' || before.status === 'expired') await edit(outcomeText(before.description, result));
      return;
    }

    if (before.status !== 'pending') {
      // A second tap, or a late one: the agent answers "already done" etc. and moves nothing.
      const result = await deps.agent.confirm(account.id, actionId, { requestId: `tg_${ctx.update.update_id}`, via: 'telegram' });
      await ctx.answerCallbackQuery({ text: clipAnswer(result.reply) });
      // Expired, or cancelled by a typed "cancel" or a correction: the old message loses its buttons too.
      if (before.status === 'expired' || before.status === 'cancelled') await edit(outcomeText(before.description, result));
      return;
    }

    // Answer at once (the button spins until answered) and take the buttons away while it runs.
    await ctx.answerCallbackQuery({ text: 'Confirming…' });
    await edit(`${before.description}\n\n⏳ Working on it…`);
    let result: TurnOutcome;
    try {
      result = await deps.agent.confirm(account.id, actionId, { requestId: `tg_${ctx.update.update_id}`, via: 'telegram' });
    } catch (err) {
      deps.logger.error({ err, actionId }, 'confirm failed');
      await edit(
        `${before.description}\n\n❌ Something went wrong while carrying this out. Check /balance and /history before trying again.`,
      );
      return;
    }
    await edit(outcomeText(before.description, result));
  });

  return c;
}
