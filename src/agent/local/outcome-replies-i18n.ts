import { formatMeterToken } from '../../bills/sandbox-provider.js';
import { formatUsdc } from '../../lib/money.js';
import { shortHash } from '../money-format.js';
import { PAYMENT_LINK_MINUTES } from '../handlers.js';
import type { Lang } from './language.js';
import * as W from './outcome-words-i18n.js';

/**
 * The whole reply for a money-moving tool's successful outcome, in the message's language,
 * built from the outcome's own `result` record: the same amounts (both currencies, formatted
 * by the same helpers from the same integer units), rate, fee, recipient, ids, tx hash and
 * link as the tool's English summary. Undefined when the result lacks a field a template
 * needs (another shape): the caller then keeps the exact English summary. A claim link has one
 * since issue h11 (its result carries `amount_text` and the base units, as transfers' do).
 */

type Rec = Record<string, unknown>;
type Vars = Record<string, string>;

const fill = (t: string, v: Vars): string => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

/** The named string fields of a record, or undefined when any is missing. */
function pick<K extends string>(r: Rec, keys: readonly K[]): Record<K, string> | undefined {
  const out = {} as Record<K, string>;
  for (const k of keys) {
    const v = r[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
    else if (typeof v === 'number' && Number.isInteger(v)) out[k] = String(v);
    else return undefined;
  }
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function transfer(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['status', 'amount_text', 'recipient', 'recipient_amount_text', 'stablecoin_amount_base_units', 'fee_base_units', 'currency', 'recipient_currency', 'rate', 'source_rate']);
  if (!f) return undefined;
  const tx = str(r.tx_hash);
  // The rate exactly as the summary states it (tools/send-transfer.ts rateClause).
  let rate = '';
  if (f.currency !== f.recipient_currency) rate = `1 ${f.currency} = ${f.rate} ${f.recipient_currency} (${f.source_rate} ${f.currency}/USDC)`;
  else if (f.currency !== 'USDC') rate = `${f.source_rate} ${f.currency}/USDC`;
  const vars: Vars = {
    sent: f.amount_text,
    to: f.recipient,
    received: f.recipient_amount_text,
    onchain: formatUsdc(f.stablecoin_amount_base_units),
    rate: rate ? fill(W.RATE_AT[lang], { r: rate }) : '',
    fee: BigInt(f.fee_base_units) > 0n ? fill(W.FEE[lang], { f: formatUsdc(f.fee_base_units) }) : W.NO_FEE[lang],
    tx: tx ? shortHash(tx) : '',
    txp: tx ? fill(W.TX[lang], { tx: shortHash(tx) }) : '',
  };
  if (f.status === 'settled') return tx ? fill(W.TRANSFER_SETTLED[lang], vars) : undefined;
  return fill(W.TRANSFER_SUBMITTED[lang], vars);
}

/** A claim to a phone or email with no account (claim-tools.ts sendAsClaim: its summary is the `en` row). */
function claim(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['recipient', 'amount_text', 'stablecoin_amount_base_units', 'status', 'expires_at', 'claim_url']);
  if (!f) return undefined;
  return fill(W.CLAIM_SENT[lang], {
    who: f.recipient,
    sent: f.amount_text,
    usdc: formatUsdc(f.stablecoin_amount_base_units),
    state: W.CLAIM_STATE[lang][f.status === 'open' ? 0 : 1],
    until: f.expires_at.slice(0, 10),
    url: f.claim_url,
    // A masked email keeps its "@" ("n•••@gmail.com"); a masked phone has none.
    contact: W.CLAIM_CONTACT[lang][f.recipient.includes('@') ? 1 : 0],
  });
}

function bill(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['status', 'amount_text', 'biller', 'account_number', 'customer_name', 'stablecoin_amount_base_units', 'rate', 'currency']);
  if (!f) return undefined;
  const what = fill(W.BILL_WHAT[lang], {
    amount: f.amount_text,
    biller: f.biller,
    acct: f.account_number,
    customer: f.customer_name,
    usdc: formatUsdc(f.stablecoin_amount_base_units),
    at: fill(W.RATE_AT[lang], { r: `${f.rate} ${f.currency}/USDC` }),
  });
  const tx = str(r.tx_hash);
  if (f.status === 'completed') {
    const rn = str(r.receipt_number);
    if (!rn || !tx) return undefined;
    const token = str(r.token);
    const units = str(r.units);
    const tokenText = token ? fill(W.TOKEN[lang], { t: formatMeterToken(token), units: units ? ` (${units} ${str(r.unit_label) ?? 'kWh'})` : '' }) : '';
    return fill(W.BILL_COMPLETED[lang], { what, rn, token: tokenText, tx: shortHash(tx) });
  }
  if (f.status === 'paid') return tx ? fill(W.BILL_PAID[lang], { what, tx: shortHash(tx), biller: f.biller }) : undefined;
  return fill(W.BILL_SUBMITTED[lang], { what });
}

function stake(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['status', 'amount_text', 'stablecoin_amount_base_units', 'rate', 'currency', 'outcome', 'question']);
  const pool = str((r.market as Rec | undefined)?.total_pool_base_units);
  if (!f || !pool) return undefined;
  const what = fill(W.STAKE_WHAT[lang], {
    amount: f.amount_text,
    usdc: formatUsdc(f.stablecoin_amount_base_units),
    at: fill(W.RATE_AT[lang], { r: `${f.rate} ${f.currency}/USDC` }),
    outcome: f.outcome,
    q: f.question,
  });
  const tx = str(r.tx_hash);
  if (f.status === 'settled') return tx ? fill(W.STAKE_SETTLED[lang], { what, tx: shortHash(tx), pool: formatUsdc(pool) }) : undefined;
  return fill(W.STAKE_SUBMITTED[lang], { what });
}

function created(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['question', 'id', 'closes_at', 'escrow_address']);
  const outcomes = Array.isArray(r.outcomes) ? r.outcomes.map((o) => str((o as Rec).label)) : [];
  if (!f || outcomes.length === 0 || outcomes.some((o) => !o)) return undefined;
  return fill(W.MARKET_CREATED[lang], { q: f.question, id: f.id, outcomes: outcomes.join(' / '), closes: f.closes_at, escrow: f.escrow_address });
}

function settled(r: Rec, lang: Lang, op: 'resolve' | 'cancel'): string | undefined {
  const f = pick(r, ['question', 'total_paid_out_base_units', 'total_pool_base_units', 'paid', 'unpaid']);
  if (!f) return undefined;
  const w = str(r.winning_outcome);
  if (op === 'resolve' && !w) return undefined;
  const lead = op === 'resolve' ? fill(W.RESOLVED[lang], { q: f.question, w: w! }) : fill(W.CANCELLED[lang], { q: f.question });
  const paid = Number(f.paid);
  const unpaid = Number(f.unpaid);
  const noun = W.STAKE_NOUN[lang][paid === 1 ? 0 : 1];
  const rest = unpaid ? fill(W.UNPAID[lang], { u: f.unpaid, payouts: unpaid === 1 ? 'payout is' : 'payouts are' }) : '';
  return `${lead}${fill(W.PAID_OUT[lang], { total: formatUsdc(f.total_paid_out_base_units), n: f.paid, stakes: noun })}${rest}${fill(W.POOL[lang], { pool: formatUsdc(f.total_pool_base_units) })}`;
}

function paymentLink(r: Rec, lang: Lang): string | undefined {
  const f = pick(r, ['amount_text', 'stablecoin_amount', 'rate', 'currency', 'checkout_url']);
  if (!f) return undefined;
  return fill(W.PAYMENT_LINK[lang], {
    amount: f.amount_text,
    usdc: f.stablecoin_amount,
    at: fill(W.RATE_AT[lang], { r: `${f.rate} ${f.currency}/USDC` }),
    url: f.checkout_url,
    min: String(PAYMENT_LINK_MINUTES),
  });
}

/** Tools whose successful outcome has a template here. */
export const LOCALIZED_TOOLS: ReadonlySet<string> = new Set(['send_transfer', 'pay_bill', 'stake_market', 'create_market', 'resolve_market', 'cancel_market', 'create_payment_link']);

/**
 * The reply for `tool`'s successful `result` in `lang` (the `en` row too, which the tests hold
 * equal to the English summary), or undefined to keep the tool's own summary.
 */
export function outcomeReply(tool: string, result: unknown, lang: Lang): string | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const r = result as Rec;
  switch (tool) {
    case 'send_transfer':
      return r.type === 'claim' ? claim(r, lang) : transfer(r, lang);
    case 'pay_bill':
      return bill(r, lang);
    case 'stake_market':
      return r.operation === 'stake' ? stake(r, lang) : undefined;
    case 'create_market':
      return r.operation === 'create' ? created(r, lang) : undefined;
    case 'resolve_market':
      return r.operation === 'resolve' ? settled(r, lang, 'resolve') : undefined;
    case 'cancel_market':
      return r.operation === 'cancel' ? settled(r, lang, 'cancel') : undefined;
    case 'create_payment_link':
      return paymentLink(r, lang);
    default:
      return undefined;
  }
}
