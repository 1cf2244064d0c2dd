import type { Analysis } from './analysis.js';
import { findTimeExpressions } from './dates.js';
import { CUE_PHRASES, RECIPIENT_KINDS } from './lexicon.js';
import { replies } from './replies.js';
import { describeAmount, freeText, moneyTokens, pickAmount } from './slots.js';
import type { Draft } from './draft.js';
import { isNationalMobile } from '../../lib/phone.js';

const TO_WORDS = new Set(['to', '2', 'into', '->', '→', 'unto']);
const NOTE_MARKERS = new Set(['note', 'memo', 'message', 'msg', 'reference', 'ref', 'reason', 'narration', 'description', 'desc', 'saying', 're', 'caption']);
const CUE_WORDS = new Set(CUE_PHRASES.flat());
const NOT_A_NAME = new Set([
  'me', 'my', 'myself', 'you', 'him', 'her', 'them', 'us', 'it', 'the', 'a', 'an', 'someone', 'somebody', 'friend', 'please',
  'account', 'wallet', 'phone', 'number', 'bank', 'mpesa', 'm-pesa',
]);

export function buildTransfer(a: Analysis): Draft {
  const candidates = a.tokens.map((t, i) => ({ t, i })).filter(({ t }) => RECIPIENT_KINDS.has(t.kind));
  let recipient: { value: string; index: number } | undefined;
  if (candidates.length) {
    const distinct = new Set(candidates.map(({ t }) => t.norm.toLowerCase()));
    // Two different people ("to @amina or @bob") is a question, not a guess.
    const chosen = distinct.size === 1 ? candidates[0] : undefined;
    if (!chosen) return { reply: replies.transferOneRecipient };
    recipient = { value: chosen.t.kind === 'phone' ? chosen.t.norm : chosen.t.text, index: chosen.i };
  }

  if (!recipient) {
    // "send 5k to 08031112233": a national number is completed with the sender's country by the
    // transfers module (it knows the account's country); the number is passed as typed, digits only.
    const nationalIdx = a.tokens.findIndex((t) => t.kind === 'number' && t.digits !== undefined && ((t.idLike && t.digits.startsWith('0') && t.digits.length >= 9 && t.digits.length <= 12) || isNationalMobile(t.digits, a.localCurrency)));
    if (nationalIdx >= 0) recipient = { value: a.tokens[nationalIdx]!.digits!, index: nationalIdx };
  }
  const amount = pickAmount(a, new Set(recipient ? [recipient.index] : []));
  if (amount?.negative || (amount && !/[1-9]/.test(amount.amount))) return { reply: replies.amountPositive };

  if (!recipient) {
    const toIdx = a.lemmas.findIndex((l, i) => TO_WORDS.has(l) && i + 1 < a.tokens.length);
    const next = toIdx >= 0 ? a.tokens[toIdx + 1] : undefined;
    if (next?.kind === 'word' && !NOT_A_NAME.has(next.norm) && !CUE_WORDS.has(a.lemmas[toIdx + 1]!) && /^\p{L}/u.test(next.text) && !a.money.some((m) => m.first === toIdx + 1)) {
      return { reply: replies.transferNamedRecipient(next.text) };
    }
    return { reply: amount ? replies.transferNeedsRecipient(describeAmount(amount)) : replies.transferNeedsBoth };
  }
  if (!amount) return { reply: replies.transferNeedsAmount(recipient.value) };

  const used = moneyTokens(amount);
  used.add(recipient.index);
  const note = findNote(a, used);
  if (mentionsLaterTime(a, note?.range)) return { reply: replies.noScheduling };
  return {
    call: {
      name: 'send_transfer',
      input: {
        recipient: recipient.value,
        amount: amount.amount,
        ...(amount.currency ? { currency: amount.currency } : {}),
        ...(note ? { note: note.text } : {}),
      },
    },
  };
}

/** "for lunch", "note: rent for May", "memo 'thanks'": the first one that yields text. */
function findNote(a: Analysis, used: ReadonlySet<number>): { text: string; range: [number, number] } | undefined {
  const stopWords = new Set(['via', 'using', 'from']);
  for (let i = 0; i < a.tokens.length; i++) {
    const lemma = a.lemmas[i]!;
    let from: number;
    if (NOTE_MARKERS.has(lemma)) {
      from = i + 1;
      while (a.tokens[from] && [':', '-', '='].includes(a.tokens[from]!.text)) from++;
    } else if (lemma === 'as' && ['a', 'an'].includes(a.tokens[i + 1]?.norm ?? '')) {
      from = i + 1; // "as a gift"
    } else if (lemma === 'for') {
      from = i + 1;
      if (used.has(from) || a.tokens[from]?.kind === 'number') continue;
    } else continue;
    const text = freeText(a, from, { used, stopWords: NOTE_MARKERS.has(lemma) ? new Set<string>() : stopWords });
    if (text) return { text: text.text.slice(0, 140).trim(), range: [text.start, text.end] };
  }
  return undefined;
}

/**
 * "send 5k to @amina tomorrow": transfers happen now, so a time outside the note means the
 * user wants something the engine can't do; better to say so than to send early.
 */
export function mentionsLaterTime(a: Analysis, inside?: [number, number]): boolean {
  return findTimeExpressions(a.tokens, { now: a.now, tz: a.tz }).some(
    (t) => t.at.getTime() > a.now.getTime() + 60_000 && !(inside && t.start >= inside[0] && t.end <= inside[1]),
  );
}

