import type { Analysis } from './analysis.js';

const words = (spec: string): ReadonlySet<string> => new Set(spec.split(/\s+/).filter(Boolean));

/** Purpose markers after which a noun and its time are the occasion paid for ("for the suya tonight", "ya mvua Jumamosi"). */
const OCCASION_MARKERS = words('for pour para pra pro ya');
const OCCASION_DETERMINERS = words('the my our his her this that le la les mon ma mes o a os as el los las mi ile hiyo');

/**
 * "send 7.5k to @emeka for the suya tonight", "weka 200 … ile ya mvua Jumamosi": every time word
 * ends a purpose phrase, right after its noun ("for [the] <noun> <time>"), so it may date the
 * occasion rather than the payment. Not a schedule to refuse; the reading leaves the time word
 * unplaced (reading-words.ts PURPOSE_STOPS), so the call is held for the person to confirm, never
 * acted at once.
 */
export function onlyTimesOfAPurpose(a: Analysis, norms: readonly string[], schedule: ReadonlySet<string>, moneyVerbs: ReadonlySet<string>): boolean {
  const times = norms.map((w, i) => (schedule.has(w) ? i : -1)).filter((i) => i >= 0);
  if (!times.length) return false;
  return times.every((i) => {
    const noun = i - 1;
    if (noun < 1 || a.tokens[noun]!.kind !== 'word' || schedule.has(norms[noun]!) || moneyVerbs.has(a.lemmas[noun]!) || OCCASION_MARKERS.has(norms[noun]!)) return false;
    const det = OCCASION_DETERMINERS.has(norms[noun - 1]!) ? noun - 1 : noun;
    return OCCASION_MARKERS.has(norms[det - 1] ?? '') && (i === a.tokens.length - 1 || a.tokens[i + 1]!.kind !== 'word' || a.fillers.has(i + 1));
  });
}

