import type { Analysis } from './analysis.js';
import type { Draft } from './draft.js';
import { replies } from './replies.js';
import { estimateAround } from './estimate.js';
import { freeText, moneyTokens, pickAmount } from './slots.js';

const DESCRIPTION_MARKERS = new Set(['description', 'desc', 'called', 'titled', 'labelled', 'labeled', 'named', 'memo', 'note', 'reference', 'ref', 're']);
const LINK_WORDS = new Set(['link', 'checkout', 'invoice', 'paylink', 'request', 'payment', 'pay', 'qr', 'code']);

export function buildPaymentLink(a: Analysis): Draft {
  const amount = pickAmount(a);
  if (amount?.negative || (amount && !/[1-9]/.test(amount.amount))) return { reply: replies.amountPositive };
  if (!amount) return { reply: replies.linkNeedsAmount };
  // "a link for about 5000", "up to 5k": a guess or a ceiling is no price to charge; asked, like a missing amount
  // (the estimate word never becomes the description). docs/agent-eval.md, sixteenth round.
  if (estimateAround(a, amount).length) return { reply: replies.linkNeedsAmount };
  const used = moneyTokens(amount);
  const description = findDescription(a, used);
  return {
    call: {
      name: 'create_payment_link',
      input: {
        amount: amount.amount,
        ...(amount.currency ? { currency: amount.currency } : {}),
        ...(description ? { description } : {}),
      },
    },
  };
}

/** "for a haircut", "description: logo design", "called 'Ankara fabric'". */
function findDescription(a: Analysis, used: ReadonlySet<number>): string | undefined {
  const stopWords = new Set(['via', 'using', 'that', 'which', 'expiring', 'expires', 'valid']);
  // "₦18,000 – braids", "75 USD: logo": a dash or colon after the amount introduces the description.
  const afterAmount = Math.max(...used) + 1;
  if (['-', '–', '—', ':'].includes(a.tokens[afterAmount]?.text ?? '')) {
    const t = freeText(a, afterAmount + 1, { used, stopWords });
    if (t) return t.text.slice(0, 300).trim();
  }
  for (let i = 0; i < a.tokens.length; i++) {
    const lemma = a.lemmas[i]!;
    let from: number;
    if (DESCRIPTION_MARKERS.has(lemma)) {
      from = i + 1;
      while (a.tokens[from] && [':', '-', '='].includes(a.tokens[from]!.text)) from++;
    } else if (lemma === 'for') {
      from = i + 1;
      if (used.has(from) || a.tokens[from]?.kind === 'number') continue;
    } else continue;
    const t = freeText(a, from, { used, stopWords });
    if (!t) continue;
    // "for a payment link" is not a description.
    if (t.text.split(/\s+/).every((w) => LINK_WORDS.has(w.toLowerCase()))) continue;
    return t.text.slice(0, 300).trim();
  }
  return undefined;
}
