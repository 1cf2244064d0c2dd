import type { z } from 'zod';
import type { Analysis, ParseContext } from './analysis.js';
import type { Draft, DraftCall } from './draft.js';
import type { Cues } from './lexicon.js';

/**
 * The local engine's side of a tool: how the deterministic parser recognises it and builds its
 * arguments. The local engine owns this contract; each tool file implements it (its `local`
 * field, src/agent/tools/*.ts) and the engine iterates the registry it is given
 * (createParser), so nothing here imports a tool or the registry: the imports run from the
 * tools down to the engine's words and builders, never back.
 *
 * Two ways to be found, tried in this order for every message that passes the gate's first
 * part (gate.ts `screen`):
 * 1. `detect`: the tool's own detector, before any scoring (read-only questions, a payment by
 *    id); detectors run by `rank`, the first answer wins.
 * 2. `scored`: cue points plus shape points; the best tool above the threshold wins (ties by
 *    `rank`), then its builder fills the arguments.
 */
export interface LocalIntent {
  readonly detect?: Detector;
  readonly scored?: ScoredIntent;
  /**
   * Rule 1 of docs/agent.md through the shared reading (reading.ts): a call of this tool acts at
   * once only on a complete reading of the message; otherwise it is held or refused. A detector
   * with its own complete reading (detect-payment-op.ts) leaves this off.
   */
  readonly wholeReading?: boolean;
}

/** A detector's answer: a call (held for confirmation when `hold`), a reply with nothing done, or a refusal. */
export type Detection =
  | { kind: 'tool'; call: DraftCall; hold?: string[] }
  | { kind: 'none'; reply: string; reason?: string }
  | { kind: 'refuse'; reply: string; reason: string };

export interface Detector {
  /** Lower runs first. */
  readonly rank: number;
  run(a: Analysis, ctx: ParseContext): Detection | undefined;
}

export interface ScoredIntent {
  /** Ties between equal scores go to the lower rank. */
  readonly rank: number;
  /** Its cue list (lexicon.ts): each phrase found in the message adds its points. */
  readonly cues: Cues;
  /** Points from the message's shapes beyond the cues (a @handle, an mkt_ id, an amount). */
  score?(a: Analysis): number;
  /** The word or shape it needs at all, so a single stray cue cannot trigger it. */
  gate(a: Analysis): boolean;
  /**
   * The gate's second part (gate.ts `check`) for this tool: `moves_money`, any verdict stops it
   * (a question, a past tense, a condition...); `takes_amount`, only a malformed amount does.
   */
  readonly instruction?: 'moves_money' | 'takes_amount';
  /** What to answer when `check` reads the message as a question about an amount (a transfer: a quote). */
  onQuestion?(a: Analysis): Draft;
  build(a: Analysis): Draft;
}

/** A tool as the local engine reads it from the registry given to it. */
export interface LocalTool {
  readonly name: string;
  readonly input: z.ZodType;
  readonly local?: LocalIntent;
}
