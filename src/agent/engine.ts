import type { Logger } from 'pino';
import type { Channel, ToolOutcome } from './tool-calls.js';
import type { Lang } from './local/language.js';

/** One user message to interpret, with what the engine may know about the caller. */
export interface EngineTurn {
  accountId: string;
  channel: Channel;
  message: string;
  requestId?: string;
  localCurrency: string;
  now: Date;
  logger: Logger;
  /** Forwarded or quoted text the door passed beside the message: data, never an instruction. */
  quoted?: readonly string[];
}

/**
 * What happened to one tool call the engine asked for. The agent decides: execute it now,
 * hold it as a pending action (money-moving, people-facing channel), or reject it.
 */
export type ToolStep =
  | { kind: 'executed'; outcome: ToolOutcome }
  | { kind: 'pending'; description: string }
  | { kind: 'rejected'; message: string }
  /**
   * Grounding stopped a money-moving call (an argument not in the person's words, or the
   * request failed the gate): the turn is over and its answer is the agent's. The engine must
   * not try other arguments; any further call answers `ended` again.
   */
  | { kind: 'ended'; message: string };

/**
 * How the engine asks for a call: `hold` (why, in a few words) when it understood the call but
 * not the whole message; the agent then holds it for confirmation on every channel, the API
 * included, exactly like a preview (`confirm: false`).
 */
export type ToolRunOptions = {
  hold?: string;
  /**
   * A read-only call the engine makes only to decide (the recipient's currency, from a quote):
   * it runs, but it is not the turn's answer. Ignored for money-moving tools.
   */
  lookup?: boolean;
  /**
   * The held action's description in the person's language, from the preview's `details` (the
   * same figures); undefined keeps the preview's own sentence. Stored on the pending action, so
   * every door that shows it (the reply, Telegram's Confirm message) shows it in that language.
   */
  describe?: (tool: string, details: Record<string, unknown> | undefined) => string | undefined;
};

/** The engine hands every tool call it wants to this; it never executes tools itself. */
export type ToolRunner = (name: string, input: unknown, opts?: ToolRunOptions) => Promise<ToolStep>;

export type EngineResult =
  /** Finished; `text` is the engine's own final words, if it has any (the model's reply). */
  | {
      kind: 'reply';
      text?: string;
      /** Said before a tool's exact summary (the local engine's "Imefanyika." in Swahili). */
      lead?: string;
      /**
       * The whole reply for the turn's tool outcome in the person's language, built from that
       * outcome's own result fields (same figures as its summary); used in place of the summary
       * or failure message. Only the local engine sets it; a model's text never fills it.
       */
      localized?: string;
      /** "Confirm or cancel; it expires in N minutes" in the person's language, for a held action. */
      ask?: (minutes: number) => string;
      /** The whole reply for a call held for confirmation (what was understood, why it waits), in the person's language. */
      held?: string;
      /**
       * A spend policy's approval note (which rule holds it, what to do) and its expiry in the
       * person's language; undefined keeps the policy's own sentence.
       */
      approval?: (note: string, minutes: number) => string | undefined;
      /** The language the reply is in (read from the person's words): a door adds its own lines to a held action in it. */
      lang?: Lang;
      /** Grounding's note before a held action (what was inferred) in the person's language; undefined keeps it. */
      note?: (note: string) => string | undefined;
    }
  | { kind: 'help'; reply: string }
  /** Nothing done; `reason` names why when the engine's gate decided it (negation, past_tense…). */
  | { kind: 'none'; reply: string; reason?: string }
  /** The request must not be done (another account, raised limits, injection, an inexact amount): 422. */
  | { kind: 'refuse'; reply: string; reason?: string }
  /** The model provider failed after retries: 503. */
  | { kind: 'unavailable'; reason: string };

/** Interprets one message into tool calls. Two implementations: local parser, Claude. */
export interface Engine {
  readonly name: 'local' | 'claude';
  run(turn: EngineTurn, runTool: ToolRunner): Promise<EngineResult>;
}

/** The 503 reply when the model provider (or the engine) cannot answer. */
export const UNAVAILABLE_REPLY = 'The assistant is temporarily unavailable. Please try again in a minute.';
