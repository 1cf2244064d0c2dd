import { createParser, parseMessage, HELP_TEXT, EXAMPLES, type ParseContext, type ParseResult } from './local/index.js';
import { TOOLS, type AnyTool } from './tools/registry.js';
import type { Engine, EngineResult, EngineTurn, ToolRunner } from './engine.js';
import { detectLanguage } from './local/language.js';
import { localizeQuestion } from './local/replies-questions-i18n.js';
import { DONE_LEAD } from './local/replies-i18n.js';
import { outcomeReply } from './local/outcome-replies-i18n.js';
import { failureReply } from './local/failure-replies-i18n.js';
import { pendingAsk, pendingExpires } from './local/pending-replies-i18n.js';
import { policyReply } from './local/policy-replies-i18n.js';
import { groundingNote } from './local/grounding-notes-i18n.js';
import type { Lang } from './local/language.js';
import type { ToolOutcome } from './tool-calls.js';
import { pendingDescription } from './local/pending-descriptions-i18n.js';
import { heldReply, pesosHeldReply } from './local/replies-held.js';
import { readReply } from './local/replies-read.js';

export type LocalParseContext = ParseContext;
export type LocalParseResult = ParseResult;
export type ParseMessage = (text: string, ctx: ParseContext) => ParseResult;

export { HELP_TEXT };
export const HELP_EXAMPLES: readonly string[] = EXAMPLES;

export interface LocalEngineOptions {
  /**
   * The tools it recognises, each through its own `local` intent (default: the agent's registry,
   * src/agent/tools/registry.ts); a test gives one with a tool added.
   */
  tools?: readonly AnyTool[];
  /** The parser (tests inject a scripted one); default the deterministic parser in ./local over `tools`. */
  parse?: ParseMessage;
  /** Biller alias index, so bill messages resolve against the catalogue. */
  billers?: ParseContext['billers'];
  /** IANA zone for "Friday", "tomorrow" (default UTC). */
  timeZone?: string;
}

/**
 * A held action's closing words in the person's language: confirm or cancel, grounding's note (what
 * was inferred), a spend policy's approval rule. English keeps the agent's and the policy's own.
 */
function heldAsks(lang: Lang): Pick<Extract<EngineResult, { kind: 'reply' }>, 'ask' | 'note' | 'approval'> {
  if (lang === 'en') return {};
  return {
    ask: (minutes) => pendingAsk(lang, minutes),
    note: (note) => groundingNote(note, lang),
    approval: (note, minutes) => {
      const said = policyReply(note, lang);
      return said ? `${said} ${pendingExpires(lang, minutes)}` : undefined;
    },
  };
}

/**
 * The built-in engine (no ANTHROPIC_API_KEY): one deterministic parse, at most one tool
 * call per turn; replies come from the tool's outcome (built by the agent).
 */
export class LocalEngine implements Engine {
  readonly name = 'local' as const;
  private readonly parse: ParseMessage;
  /** Tools that change nothing: their reply never opens with "done". */
  private readonly readOnly: ReadonlySet<string>;

  constructor(private readonly opts: LocalEngineOptions = {}) {
    this.parse = opts.parse ?? (opts.tools ? createParser(opts.tools) : parseMessage);
    this.readOnly = new Set((opts.tools ?? TOOLS).filter((t) => t.readOnly).map((t) => t.name));
  }

  /**
   * Why nothing moved, in the person's language: a spend policy's refusal whole (which rule, what
   * to do), else by reason; else the tool's own message.
   */
  private failed(outcome: Extract<ToolOutcome, { ok: false }>, lang: Lang): EngineResult {
    if (lang === 'en') return { kind: 'reply' };
    const localized = (outcome.reason.startsWith('policy_') ? policyReply(outcome.message, lang) : undefined) ?? failureReply(outcome.reason, lang);
    // The market's own outcome labels, to choose from ("…; choose Yes or No."): they are the market's words, in no language.
    const options = outcome.reason === 'invalid_outcome' ? /; choose (.+)\.$/.exec(outcome.message)?.[1]?.split(' or ').join(' / ') : undefined;
    if (localized && options) return { kind: 'reply', localized: `${localized} (${options})` };
    return localized ? { kind: 'reply', localized } : { kind: 'reply' };
  }

  /**
   * "send 500 pesos to @x" from an account holding no pesos: when the recipient receives Mexican or
   * Philippine pesos (a quote tells, as a lookup), those are the pesos meant, as a named inference:
   * the transfer is held for the person to confirm, never acted on at once. Otherwise undefined: the
   * engine asks which pesos, in the person's language.
   */
  private async pesos(p: NonNullable<Extract<ParseResult, { kind: 'none' }>['pesos']>, message: string, runTool: ToolRunner): Promise<EngineResult | undefined> {
    const looked = await runTool('quote_transfer', { amount: p.amount, recipient: p.recipient }, { lookup: true });
    const result = looked.kind === 'executed' && looked.outcome.ok ? (looked.outcome.result as { recipient_currency?: unknown }) : undefined;
    const currency = result?.recipient_currency;
    if (currency !== 'MXN' && currency !== 'PHP') return undefined;
    const lang = detectLanguage(message);
    const describe = (tool: string, details: Record<string, unknown> | undefined) => pendingDescription(tool, details, lang);
    const input = { recipient: p.recipient, amount: p.amount, currency, ...(p.note ? { note: p.note } : {}) };
    const step = await runTool('send_transfer', input, { hold: `pesos -> ${currency}`, describe });
    if (step.kind === 'pending') return { kind: 'reply', lang, held: pesosHeldReply(lang, currency, p.recipient, step.description), ...heldAsks(lang) };
    if (step.kind === 'executed' && !step.outcome.ok) return this.failed(step.outcome, lang);
    return { kind: 'reply' };
  }

  async run(turn: EngineTurn, runTool: ToolRunner): Promise<EngineResult> {
    const parsed = this.parse(turn.message, {
      now: turn.now,
      localCurrency: turn.localCurrency,
      ...(this.opts.timeZone ? { timeZone: this.opts.timeZone } : {}),
      ...(this.opts.billers ? { billers: this.opts.billers } : {}),
    });
    switch (parsed.kind) {
      case 'help':
        // In the person's language (a greeting in Sheng gets the Swahili answer).
        return { kind: 'help', reply: localizeQuestion(HELP_TEXT, detectLanguage(turn.message)) };
      case 'none':
        if (parsed.pesos) {
          const held = await this.pesos(parsed.pesos, turn.message, runTool);
          if (held) return held;
        }
        return { kind: 'none', reply: parsed.reply, ...(parsed.reason ? { reason: parsed.reason } : {}) };
      case 'refuse':
        return { kind: 'refuse', reply: parsed.reply, ...(parsed.reason ? { reason: parsed.reason } : {}) };
      case 'tool': {
        // The reply is built by the agent from the outcome (or the pending action); in another
        // language the engine gives it whole in that language, from the same outcome's figures.
        const lang = detectLanguage(turn.message);
        // A held action's description in the person's language, from its preview's figures.
        const describe = (tool: string, details: Record<string, unknown> | undefined) => pendingDescription(tool, details, lang);
        const held = heldAsks(lang);
        if (parsed.hold) {
          // Understood, but not every word: the call waits for a person to confirm, on every channel.
          const step = await runTool(parsed.call.name, parsed.call.input, { hold: parsed.hold.join(' '), describe });
          if (step.kind === 'pending') return { kind: 'reply', lang, held: heldReply(lang, parsed.hold, step.description), ...held };
          return step.kind === 'executed' && !step.outcome.ok ? this.failed(step.outcome, lang) : { kind: 'reply' };
        }
        const step = await runTool(parsed.call.name, parsed.call.input, { describe });
        if (step.kind === 'pending') return { kind: 'reply', lang, ...held };
        if (step.kind !== 'executed' || lang === 'en') return { kind: 'reply' };
        if (!step.outcome.ok) return this.failed(step.outcome, lang);
        // A quote or a balance did nothing: it is answered whole in the person's language, never with "done".
        if (this.readOnly.has(parsed.call.name)) {
          const text = readReply(parsed.call.name, step.outcome.summary, lang, step.outcome.result);
          return text ? { kind: 'reply', text } : { kind: 'reply' };
        }
        // A money-moving result, whole in the person's language, from the outcome's own figures.
        const localized = outcomeReply(parsed.call.name, step.outcome.result, lang);
        return localized ? { kind: 'reply', localized } : { kind: 'reply', lead: DONE_LEAD[lang] };
      }
    }
  }
}
