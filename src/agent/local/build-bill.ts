import {
  billersFromMatches,
  CATEGORY_HINT_WORDS,
  COUNTRY_HINT_WORDS,
  CURRENCY_COUNTRY,
  type BillerCategory,
  type BillerRef,
} from '../../bills/catalogue.js';
import { billerForPhone } from '../../bills/mobile-networks.js';
import { splitPhone } from '../../lib/phone.js';
import type { Analysis } from './analysis.js';
import { CURRENCY_WORDS, ISO_CODES } from './currencies.js';
import { mentionsLaterTime } from './build-transfer.js';
import type { Draft } from './draft.js';
import { replies } from './replies.js';
import { pickAmount } from './slots.js';
import { neverABiller } from './biller-stopwords-i18n.js';

/** Words right before a customer number ("meter 4512...", "for 0803...", "line 0712..."). */
const ACCOUNT_LEADS = new Set([
  'meter', 'number', 'no', 'num', 'smartcard', 'card', 'iuc', 'account', 'acct', 'acc', 'line', 'phone', 'customer', 'decoder',
  'for', 'to', 'on', 'id',
]);
/** Nouns a biller's name sits in front of when the catalogue does not know it ("my XYZ meter"). */
const BILL_THING = new Set(['meter', 'smartcard', 'iuc', 'decoder', 'account', 'line', 'token', 'bill', 'subscription', 'airtime', 'data', 'prepaid', 'postpaid', 'bundle']);
const NOT_A_BILLER = new Set([
  'my', 'the', 'a', 'an', 'for', 'of', 'to', 'pay', 'buy', 'recharge', 'top', 'up', 'topup', 'renew', 'load', 'reload', 'please',
  'our', 'your', 'his', 'her', 'this', 'that', 'some', 'prepaid', 'postpaid', 'electricity', 'light', 'power', 'water', 'tv',
  'phone', 'with', 'and', 'send', 'get', 'me',
]);

export function buildBill(a: Analysis): Draft {
  const stated = a.money.find((m) => m.currency && !m.negative)?.currency;
  const category = a.lemmas.map((l) => CATEGORY_HINT_WORDS[l]).find((c): c is BillerCategory => c !== undefined);

  // Account candidates first: an E.164 phone also tells us the country.
  const phone = a.tokens.find((t) => t.kind === 'phone');
  const phoneCountry = phone?.norm.startsWith('+') ? splitPhone(phone.norm)?.country : undefined;
  const wordCountry = a.tokens.map((t, i) => COUNTRY_HINT_WORDS[t.norm] ?? COUNTRY_HINT_WORDS[t.norm + (a.tokens[i + 1]?.norm ?? '')]).find(Boolean);
  const country = (stated && CURRENCY_COUNTRY[stated]) || phoneCountry || wordCountry || CURRENCY_COUNTRY[a.localCurrency];

  let biller: { value: string; ref?: BillerRef; label: string } | undefined;
  if (a.billers) {
    const picked = billersFromMatches(a.billers, a.billerMatches, {
      category,
      country,
      words: a.tokens.map((t) => t.norm),
    });
    if (picked?.candidates.length === 1) {
      const ref = picked.candidates[0]!;
      biller = { value: ref.id, ref, label: ref.name };
    } else if (picked) {
      biller = { value: picked.match.entry.label, label: picked.match.entry.label };
    }
  }
  // Airtime or data with no network named ("buy 500 naira airtime for 08031234567"): the
  // number's own network, from its prefix, in the message's currency country or the user's.
  const preliminary = pickAccount(a, biller?.ref);
  const phoneLike = preliminary && /^(?:\+|0)\d{8,13}$/.test(preliminary.value);
  const topUp = a.lemmas.some((l) => ['recharge', 'top', 'topup', 'reload', 'airtime', 'credit', 'load'].includes(l));
  const mobileCategory = category === 'internet' || category === 'airtime' ? category : topUp && phoneLike && (!category || category === 'electricity' && !a.lemmas.includes('meter')) ? 'airtime' : undefined;
  if (phoneLike && mobileCategory && (!biller?.ref || biller.ref.category === 'airtime' || biller.ref.category === 'internet')) {
    const countries = [stated && CURRENCY_COUNTRY[stated], phoneCountry, wordCountry, CURRENCY_COUNTRY[a.localCurrency], 'NG', 'KE', 'GH', 'ZA'];
    const brand = biller?.ref;
    for (const c of countries) {
      if (!c) continue;
      const id = billerForPhone(preliminary.value, mobileCategory, c);
      if (!id || !a.billers) continue;
      const ref = a.billers.billers.get(id);
      if (!ref) continue;
      // A named brand wins when it is a network of the number's country (ported numbers), in the
      // category asked: "data ya safaricom" is Safaricom's data, not its airtime.
      if (brand && brand.country === ref.country) {
        if (brand.category !== mobileCategory && networkOf(brand.id) === networkOf(ref.id)) biller = { value: ref.id, ref, label: ref.name };
        break;
      }
      biller = { value: ref.id, ref, label: ref.name };
      break;
    }
  }
  biller ??= onlyBillerOfItsKind(a, category, country);
  biller ??= billerFromWords(a);
  // "buy glo data": a network with airtime but no data product here must not be read as its
  // airtime (or the other way round); the word asked for would be left unplaced, so ask.
  const mobile = (c: BillerCategory | undefined) => c === 'airtime' || c === 'internet';
  if (biller?.ref && mobile(category) && mobile(biller.ref.category) && biller.ref.category !== category) return { reply: replies.billNeedsBiller };

  const account = pickAccount(a, biller?.ref);
  const exclude = new Set<number>(a.billerTokens);
  if (account) exclude.add(account.index);
  const amount = pickAmount(a, exclude);
  if (amount?.negative || (amount && !/[1-9]/.test(amount.amount))) return { reply: replies.amountPositive };

  if (!biller && !account && !amount) return { reply: replies.billNeedsAll };
  if (!biller) return { reply: replies.billNeedsBiller };
  if (!account) {
    const label = biller.ref ? biller.ref.accountLabel.toLowerCase() : 'meter, smartcard or phone number';
    return { reply: replies.billNeedsAccount(biller.label, label) };
  }
  if (!amount) return { reply: replies.billNeedsAmount(biller.label) };
  if (mentionsLaterTime(a)) return { reply: replies.noScheduling };
  return {
    call: {
      name: 'pay_bill',
      input: {
        biller: biller.value,
        account_number: account.value,
        amount: amount.amount,
        ...(amount.currency ? { currency: amount.currency } : {}),
      },
    },
  };
}

function pickAccount(a: Analysis, ref: BillerRef | undefined): { value: string; index: number } | undefined {
  const pattern = ref ? new RegExp(ref.accountPattern) : undefined;
  let best: { value: string; index: number; score: number } | undefined;
  a.tokens.forEach((t, i) => {
    if (a.billerTokens.has(i)) return;
    let value: string | undefined;
    if (t.kind === 'phone') value = t.norm;
    else if (t.kind === 'number' && !t.currency && !t.scaled && !t.grouped && !t.ordinal && !t.negative && t.value && !t.value.includes('.')) {
      if (t.idLike || (t.digits?.length ?? 0) >= 6) value = t.digits;
    } else if (t.kind === 'word' && /\d/.test(t.text) && /^[A-Za-z0-9-]{5,32}$/.test(t.text)) value = t.text.toUpperCase();
    if (!value || value.length < 3 || value.length > 32) return;
    let score = value.length / 100;
    if (pattern?.test(value)) score += 5;
    if (ACCOUNT_LEADS.has(a.lemmas[i - 1] ?? '')) score += 2;
    if (!best || score > best.score) best = { value, index: i, score };
  });
  return best ? { value: best.value, index: best.index } : undefined;
}

/** Words that name a prepaid meter in the corridor languages ("mita 3712…", "compteur …", "medidor …"). */
const METER_WORDS = new Set(['meter', 'mita', 'compteur', 'contador', 'medidor', 'token', 'tokens']);

/**
 * No biller named, but its kind is ("lipa stima, mita 3712…", "pay electricity 2k meter 3712…"): the one
 * biller of that category in the writer's country whose account pattern the written number fits (a meter
 * keeps only billers whose account is a meter). Several (Nigeria's and South Africa's electricity) are
 * asked about, as before; issue h16.
 */
function onlyBillerOfItsKind(a: Analysis, category: BillerCategory | undefined, country: string | undefined): { value: string; ref: BillerRef; label: string } | undefined {
  if (!a.billers || !category || !country || category === 'airtime' || category === 'internet') return undefined;
  const account = pickAccount(a, undefined);
  if (!account) return undefined;
  const meter = a.tokens.some((t, i) => METER_WORDS.has(t.norm) || METER_WORDS.has(a.lemmas[i]!));
  const fits = [...a.billers.billers.values()].filter(
    (b) => b.country === country && b.category === category && new RegExp(b.accountPattern).test(account.value) && (!meter || /meter/i.test(b.accountLabel)),
  );
  return fits.length === 1 ? { value: fits[0]!.id, ref: fits[0]!, label: fits[0]!.name } : undefined;
}

/** Without a catalogue match: the word before "meter"/"airtime"/..., or after "on"/"via" ("airtime ... on MTN"). */
function billerFromWords(a: Analysis): { value: string; label: string } | undefined {
  const ok = (i: number) => {
    const t = a.tokens[i];
    // A currency is never a biller: "buy 80 KES airtime for +254…".
    const currency = CURRENCY_WORDS[t?.norm ?? ''] !== undefined || ISO_CODES.has((t?.norm ?? '').toUpperCase());
    return t?.kind === 'word' && !currency && !NOT_A_BILLER.has(t.norm) && !neverABiller(t.norm) && !BILL_THING.has(a.lemmas[i]!) && !CATEGORY_HINT_WORDS[t.norm] && !CATEGORY_HINT_WORDS[a.lemmas[i]!];
  };
  for (let k = 0; k < a.tokens.length; k++) {
    if (!BILL_THING.has(a.lemmas[k]!)) continue;
    if (ok(k - 1)) {
      const start = ok(k - 2) && /^\p{Lu}/u.test(a.tokens[k - 2]!.text) ? k - 2 : k - 1;
      const text = a.text.slice(a.tokens[start]!.start, a.tokens[k - 1]!.end);
      return { value: text, label: text };
    }
  }
  for (let k = 0; k < a.tokens.length; k++) {
    if ((a.lemmas[k] === 'on' || a.lemmas[k] === 'via') && ok(k + 1) && /^\p{Lu}/u.test(a.tokens[k + 1]!.text)) {
      const text = a.tokens[k + 1]!.text;
      return { value: text, label: text };
    }
  }
  return undefined;
}

/** The network part of a mobile biller's id: "ke-safaricom-data" -> "safaricom". */
function networkOf(id: string): string | undefined {
  return id.split('-')[1];
}
