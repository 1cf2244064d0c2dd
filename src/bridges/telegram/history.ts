import { Composer } from 'grammy';
import type { Account } from '../../accounts/accounts.js';
import { activityText, detectLanguage, LANGS, shownLanguage, type ActivityEntry, type Lang } from '../../agent/index.js';
import type { BotContext, TelegramDeps } from './context.js';
import { clip, requireAccount } from './ui.js';

export const HISTORY_LIMIT = 10;

const UNAVAILABLE: Readonly<Record<Lang, string>> = {
  en: 'Your history is not available just now; try again shortly.',
  pcm: 'Your history no dey available now; try again small time.',
  sw: 'Historia yako haipatikani kwa sasa; jaribu tena baadaye kidogo.',
  fr: "Votre historique n'est pas disponible pour le moment ; réessayez dans un instant.",
  pt: 'Seu histórico não está disponível agora; tente de novo daqui a pouco.',
  es: 'Tu historial no está disponible ahora; inténtalo de nuevo en un momento.',
  hi: 'Aapki history abhi nahi mil rahi; thodi der baad phir try karein.',
  tl: 'Hindi makuha ang history mo ngayon; subukan ulit mamaya.',
};

export function accountLabel(a: Pick<Account, 'name' | 'telegramUsername'> | undefined): string {
  if (!a) return 'someone';
  return a.telegramUsername ? `@${a.telegramUsername}` : a.name;
}

/**
 * The person's language for a command, which has no sentence to read it from: the words after it
 * when there are some ("/history yangu"), else the language they last wrote to the bot in
 * (`remembered`, kept with their Telegram link: a Pidgin speaker's app is often set to English),
 * else the language their Telegram app is set to when it is one of the agent's eight (Filipino as
 * Tagalog), else English.
 */
export function commandLanguage(args: string, remembered: string | undefined, languageCode: string | undefined): Lang {
  if (args.trim()) return detectLanguage(args);
  if (remembered && (LANGS as readonly string[]).includes(remembered)) return remembered as Lang;
  const code = (languageCode ?? '').toLowerCase().split(/[-_]/)[0]!;
  const lang = code === 'fil' ? 'tl' : code;
  return (LANGS as readonly string[]).includes(lang) ? (lang as Lang) : 'en';
}

/**
 * Keeps the language `words` (the person's own, never a quoted or forwarded message) show they
 * are written in with the account's Telegram link, when they show one and it changed: a bare
 * amount or "ok" keeps the last one known. Best effort: a failed write only loses the memory.
 */
export async function rememberLanguage(deps: Pick<TelegramDeps, 'accounts' | 'logger'>, account: Account, words: string): Promise<Account> {
  const lang = shownLanguage(words);
  if (!lang || lang === account.telegramLanguage) return account;
  try {
    return (await deps.accounts.update(account.id, { telegramLanguage: lang })) ?? account;
  } catch (err) {
    deps.logger.warn({ err }, 'could not remember the Telegram language');
    return { ...account, telegramLanguage: lang };
  }
}

/**
 * /history: the account's recent live activity, newest first, as the chat shows it: the agent's
 * list_activity entries (transfers sent and received, claim links, bills, stakes, payment links)
 * phrased by the one table the chat uses (src/agent/local/activity-i18n.ts), in the person's language.
 */
export function historyFeature(deps: TelegramDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.command('history', async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    const lang = commandLanguage(ctx.match, (await rememberLanguage(deps, account, ctx.match)).telegramLanguage, ctx.from?.language_code);
    // No key: the live mode's records only (Telegram is the person's live door, docs/test-mode.md).
    const r = await deps.agent.callTool({ accountId: account.id, channel: 'telegram', name: 'list_activity', input: { limit: HISTORY_LIMIT * 2 } });
    const listed = r.ok ? (r.result as { entries?: ActivityEntry[] } | undefined)?.entries : undefined;
    if (!listed) return void (await ctx.reply(UNAVAILABLE[lang]));
    // A transfer coming in counts only once it arrived.
    const entries = listed.filter((e) => !(e.kind === 'transfer' && e.direction === 'in' && !e.claim_link && e.status !== 'settled')).slice(0, HISTORY_LIMIT);
    await ctx.reply(clip(activityText(entries, lang)));
  });

  return c;
}
