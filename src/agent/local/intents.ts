import { findPhrase, type Analysis } from './analysis.js';
import { HELP_CUES, type Cues } from './lexicon.js';
import type { ScoredIntent } from './local-intent.js';

/**
 * Intent scoring over the tools the engine was given: each tool's cue words add points
 * (lexicon.ts), its `score` adds the points of the message's shapes, and its `gate` must pass
 * so a single stray word cannot trigger it. The engine's own "help" intent competes too.
 */

export const HELP = 'help';

export interface Scored {
  /** A tool's name, or "help". */
  readonly name: string;
  readonly scored: ScoredIntent;
}

/** Greetings and "what can you do": help, unless an amount says it is a request. */
export const HELP_INTENT: Scored = {
  name: HELP,
  scored: {
    rank: 100,
    cues: HELP_CUES,
    score: (a) => (a.money.some((m) => !m.negative) ? -5 : 0),
    gate: () => true,
    // Never built: the parser answers help itself when this intent wins.
    build: () => ({ reply: '' }),
  },
};

const MIN_SCORE = 3;

const split = new Map<string, readonly string[]>();
function cuePoints(a: Analysis, cues: Cues): number {
  let points = 0;
  for (const [phrase, n] of cues) {
    let words = split.get(phrase);
    if (!words) split.set(phrase, (words = phrase.split(' ')));
    if (findPhrase(a, words) >= 0) points += n;
  }
  return points;
}

/** The best intent of `intents` (sorted by rank), or undefined when nothing gated in scores enough. Ties go to the lower rank. */
export function bestIntent(a: Analysis, intents: readonly Scored[]): Scored | undefined {
  let best: Scored | undefined;
  let top = MIN_SCORE - 1;
  for (const intent of intents) {
    if (!intent.scored.gate(a)) continue;
    const s = cuePoints(a, intent.scored.cues) + (intent.scored.score?.(a) ?? 0);
    if (s > top) {
      best = intent;
      top = s;
    }
  }
  return best;
}
