import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The evaluation set's types and the pure scoring: what action and arguments an answer of
 * POST /api/agent/settle shows, and whether they are the expected ones. No HTTP here
 * (run-eval.ts drives the service).
 */

export const EVAL_DIR = path.dirname(fileURLToPath(import.meta.url));

export type Lang = 'en' | 'pcm' | 'sw' | 'fr' | 'pt' | 'es' | 'hi' | 'tl';
export const LANGS: readonly Lang[] = ['en', 'pcm', 'sw', 'fr', 'pt', 'es', 'hi', 'tl'];

export type EvalAction =
  | 'transfer'
  | 'bill'
  | 'market_create'
  | 'market_stake'
  | 'market_list'
  | 'market_resolve'
  | 'market_cancel'
  | 'payment_link'
  | 'balance'
  | 'quote'
  | 'activity'
  | 'refund'
  | 'capture'
  | 'void'
  | 'none';
export const ACTIONS: readonly EvalAction[] = [
  'transfer',
  'bill',
  'market_create',
  'market_stake',
  'market_list',
  'market_resolve',
  'payment_link',
  'balance',
  'quote',
  'activity',
  'refund',
  'capture',
  'void',
  'none',
];
/** Actions whose tool moves money when it runs. */
export const MONEY_MOVING: ReadonlySet<string> = new Set(['transfer', 'bill', 'market_stake', 'market_resolve', 'market_cancel', 'refund', 'capture', 'void']);
/** The merchant's own payments (merchant.json): previewed only, never executed by the runner. */
export const MERCHANT_ACTIONS: ReadonlySet<string> = new Set(['refund', 'capture', 'void']);

export interface EvalCase {
  id: string;
  lang: Lang;
  from: string;
  message: string;
  expect: { action: EvalAction; args?: Record<string, unknown> };
  moves: boolean;
  tags?: string[];
}

export interface FixtureAccount {
  key: string;
  name: string;
  country: string;
  currency: string;
  phone?: string;
  fund?: string;
}
export interface FixtureMarket {
  key: string;
  creator: string;
  question: string;
  outcomes: string[];
}
export interface Fixtures {
  accounts: FixtureAccount[];
  markets: FixtureMarket[];
}

/**
 * `unseen`: messages written after the engine's issue-11 work, without reading its word lists, to
 * measure generalisation; the engine may be fixed for the general gaps they show, never per sentence.
 */
export type EvalSetName = 'dev' | 'held-out' | 'unseen' | 'fresh' | 'merchant' | 'corridor' | 'corridor-2' | 'corridor-3' | 'corridor-4' | 'corridor-5' | 'corridor-6' | 'corridor-7' | 'corridor-8' | 'corridor-9' | 'corridor-10' | 'corridor-11' | 'corridor-12';
const SET_FILES: Record<EvalSetName, string> = {
  dev: 'cases.json',
  'held-out': 'held-out.json',
  unseen: 'unseen.json',
  fresh: 'fresh.json',
  merchant: 'merchant.json',
  corridor: 'corridor.json',
  'corridor-2': 'corridor-2.json',
  'corridor-3': 'corridor-3.json',
  'corridor-4': 'corridor-4.json',
  'corridor-5': 'corridor-5.json',
  'corridor-6': 'corridor-6.json',
  'corridor-7': 'corridor-7.json',
  'corridor-8': 'corridor-8.json',
  'corridor-9': 'corridor-9.json',
  'corridor-10': 'corridor-10.json',
  'corridor-11': 'corridor-11.json',
  'corridor-12': 'corridor-12.json',
};
/** Sets whose every message is sent as `{message}` (acts at once): held and served are scored apart. */
export const ACT_AT_ONCE_SETS: ReadonlySet<EvalSetName> = new Set(['fresh', 'corridor', 'corridor-2', 'corridor-3', 'corridor-4', 'corridor-5', 'corridor-6', 'corridor-7', 'corridor-8', 'corridor-9', 'corridor-10', 'corridor-11', 'corridor-12']);

export function loadCases(set: EvalSetName): EvalCase[] {
  return JSON.parse(readFileSync(path.join(EVAL_DIR, SET_FILES[set]), 'utf8')) as EvalCase[];
}
export function loadFixtures(): Fixtures {
  return JSON.parse(readFileSync(path.join(EVAL_DIR, 'fixtures.json'), 'utf8')) as Fixtures;
}

/** Catalogue names -> ids, so a preview's biller name can be compared with an expected id. */
export function billerIds(): Map<string, string> {
  const file = path.join(EVAL_DIR, '..', '..', '..', 'data', 'billers.json');
  const cat = JSON.parse(readFileSync(file, 'utf8')) as { billers: { id: string; name: string }[] };
  const ids = new Map<string, string>();
  for (const b of cat.billers) {
    ids.set(b.name.toLowerCase(), b.id);
    ids.set(b.id.toLowerCase(), b.id);
  }
  return ids;
}

/** What one answer showed: the action, the arguments it acted (or would act) on, and status. */
export interface Observed {
  status: number;
  action: EvalAction | 'error' | 'market_failed';
  /** The tool that ran or was held, when the answer names it. */
  tool?: string;
  args: Record<string, unknown>;
  /** The answer reports money that moved (an executed money-moving tool that succeeded). */
  moved: boolean;
  /** The answer held a pending action (preview). */
  held: boolean;
  reason?: string;
}

type Body = Record<string, any>;

const TOOL_TO_ACTION: Record<string, EvalAction> = {
  send_transfer: 'transfer',
  pay_bill: 'bill',
  create_market: 'market_create',
  stake_market: 'market_stake',
  list_markets: 'market_list',
  resolve_market: 'market_resolve',
  cancel_market: 'market_cancel',
  create_payment_link: 'payment_link',
  get_balance: 'balance',
  quote_transfer: 'quote',
  list_activity: 'activity',
  refund_payment: 'refund',
  capture_payment: 'capture',
  void_payment: 'void',
};

const MARKET_OPS: Record<string, EvalAction> = {
  create: 'market_create',
  stake: 'market_stake',
  list: 'market_list',
  resolve: 'market_resolve',
  cancel: 'market_cancel',
};

/** Reads an agent answer (preview, executed or refused) into the eval's vocabulary. */
export function observe(status: number, body: Body, billers: Map<string, string>): Observed {
  const base = { status, moved: false, held: false, args: {} as Record<string, unknown>, ...(body?.reason ? { reason: String(body.reason) } : {}) };
  if (!body || typeof body !== 'object' || (status !== 200 && status !== 422)) return { ...base, action: 'error' };
  const act = String(body.action ?? 'none');
  const result: Body | undefined = body[act] && typeof body[act] === 'object' ? body[act] : undefined;

  // A held action (preview): the stored tool and input, plus the preview's resolved details.
  const pending = body.pending_action ?? body.pending;
  if (body.ok && pending && result?.status === 'awaiting_confirmation') {
    const tool = String(result.tool ?? pending.tool);
    const input: Body = result.input ?? {};
    return { ...base, held: true, tool, action: TOOL_TO_ACTION[tool] ?? 'error', args: heldArgs(tool, input, result, billers) };
  }

  const tool = typeof body.tool === 'string' ? body.tool : undefined;
  let action: Observed['action'];
  if (tool && TOOL_TO_ACTION[tool]) action = TOOL_TO_ACTION[tool]!;
  else if (act === 'transfer' && (result?.operation === 'quote' || result?.status === 'quote' || result?.status === 'quoted')) action = 'quote';
  else if (act === 'transfer') action = 'transfer';
  else if (act === 'bill') action = 'bill';
  else if (act === 'payment') action = result?.refund ? 'refund' : result?.captured_now !== undefined ? 'capture' : result?.voided_now !== undefined ? 'void' : 'payment_link';
  else if (act === 'balance') action = 'balance';
  else if (act === 'quote' || (act !== 'transfer' && body.quote && typeof body.quote === 'object')) action = 'quote';
  else if (act === 'activity' || act === 'history' || (body.activity && typeof body.activity === 'object')) action = 'activity';
  else if (act === 'market') action = MARKET_OPS[String(result?.operation)] ?? 'market_failed';
  else if (act === 'info') {
    const topic = String(body.info?.topic ?? '');
    action = topic === 'quote' ? 'quote' : topic === 'activity' || topic === 'history' ? 'activity' : 'none';
  } else action = 'none';

  const ok = body.ok === true && status === 200;
  // A transfer to a phone with no account is a claim (docs/claims.md): the sender is debited into it at once.
  const claim = action === 'transfer' && result?.type === 'claim';
  const moved = ok && MONEY_MOVING.has(action) && !!result && (claim || MERCHANT_ACTIONS.has(action) || ['settled', 'submitted', 'completed', 'paid', 'resolved', 'cancelled'].includes(String(result.status)));
  return { ...base, ...(tool ? { tool } : {}), action, moved, args: ok && result ? executedArgs(action, result, body, billers) : {} };
}

function heldArgs(tool: string, input: Body, details: Body, billers: Map<string, string>): Record<string, unknown> {
  switch (tool) {
    case 'send_transfer':
      return {
        recipient: input.recipient,
        recipient_label: details.recipient,
        amount: details.amount ?? input.amount,
        currency: details.currency ?? input.currency,
      };
    case 'pay_bill':
      return {
        biller_id: billers.get(String(details.biller ?? '').toLowerCase()) ?? billers.get(String(input.biller ?? '').toLowerCase()) ?? input.biller,
        account_number: details.account_number ?? input.account_number,
        amount: details.amount ?? input.amount,
        currency: details.currency ?? input.currency,
      };
    case 'stake_market':
      return { market_id: details.market_id ?? input.market, outcome: details.outcome ?? input.outcome, amount: details.amount ?? input.amount, currency: details.currency ?? input.currency };
    case 'resolve_market':
    case 'cancel_market':
      return { market_id: details.market_id ?? input.market, outcome: details.outcome ?? input.outcome };
    default:
      return { ...input };
  }
}

function executedArgs(action: Observed['action'], r: Body, body: Body, _billers: Map<string, string>): Record<string, unknown> {
  switch (action) {
    case 'transfer':
      return { recipient: r.recipient, amount: r.amount, currency: r.currency };
    case 'bill':
      return { biller_id: r.biller_id, account_number: r.account_number, amount: r.amount, currency: r.currency };
    case 'market_stake':
      return { market_id: r.market_id, outcome: r.outcome, amount: r.amount, currency: r.currency };
    case 'market_resolve':
      return { market_id: r.id, outcome: r.winning_outcome };
    case 'market_create':
      return { question: r.question, outcomes: Array.isArray(r.outcomes) ? r.outcomes.map((o: Body) => o.label ?? o) : undefined };
    case 'market_list':
      return { status: r.status };
    case 'payment_link':
      return { amount: r.amount, currency: r.currency, description: r.description };
    case 'quote':
    case 'activity':
      return { result: r, reply: body.reply };
    // Done at once (the corridor sets): the payment's own fields, its id and what this call moved.
    case 'refund':
      return { payment_id: r.id, amount: r.refund?.amount };
    case 'capture':
      return { payment_id: r.id, amount: r.captured_now };
    case 'void':
      return { payment_id: r.id };
    default:
      return {};
  }
}

// ------------------------------------------------------------------ argument comparison

/** "12500.50" -> "12500.5"; undefined when not a plain decimal. */
export function decimal(v: unknown): string | undefined {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^\d+(\.\d+)?$/.test(s)) return undefined;
  const [i, f = ''] = s.split('.');
  const int = i!.replace(/^0+(?=\d)/, '');
  const frac = f.replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

const digits = (v: unknown) => String(v ?? '').replace(/\D/g, '');
/** Phones compare by their last 9 digits (the subscriber number without country code or trunk 0). */
function samePhoneOrNumber(a: unknown, b: unknown): boolean {
  const [x, y] = [digits(a), digits(b)];
  if (!x || !y) return false;
  if (x.length >= 9 && y.length >= 9) return x.slice(-9) === y.slice(-9);
  return x === y;
}
const fold = (s: unknown) =>
  String(s ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .trim();

function sameRecipient(expected: string, got: Record<string, unknown>): boolean {
  const candidates = [got.recipient, got.recipient_label].filter((v) => v !== undefined && v !== null);
  if (expected.startsWith('@')) return candidates.some((c) => fold(c).split(/\s/)[0] === fold(expected));
  if (expected.includes('@')) return candidates.some((c) => fold(c) === fold(expected) || sameMaskedEmail(String(c), expected));
  return candidates.some((c) => samePhoneOrNumber(c, expected) || sameMaskedPhone(String(c), expected));
}

/** A claim names its email masked: its first letter and its domain ("n•••@gmail.com"). */
function sameMaskedEmail(masked: string, expected: string): boolean {
  const m = /^([^•@\s]*)•+@(\S+)$/.exec(masked.trim());
  const [user = '', domain = ''] = expected.toLowerCase().split('@');
  return m !== null && m[2]!.toLowerCase() === domain && user.startsWith(m[1]!.toLowerCase());
}

/**
 * A claim names its phone masked: its first four digits and its last three ("+2773•••••567"). With a
 * three-digit calling code only one national digit shows ("+2348•••••543"): the shown head must end
 * with the national number's first one or two digits after a calling code of one to three digits.
 */
function sameMaskedPhone(masked: string, expected: string): boolean {
  const m = /^\+?(\d+)•+(\d+)$/.exec(masked.trim());
  const national = digits(expected).replace(/^0/, '');
  if (!m || national.length < 7 || !national.endsWith(m[2]!)) return false;
  const head = m[1]!;
  return [1, 2].some((k) => head.length - k >= 1 && head.length - k <= 3 && head.endsWith(national.slice(0, k)));
}

/** Every scalar in a JSON value (for quote answers, whose field names this set does not fix). */
function scalars(v: unknown, out: string[] = []): string[] {
  if (v === null || v === undefined) return out;
  if (typeof v === 'object') for (const x of Object.values(v as object)) scalars(x, out);
  else out.push(String(v));
  return out;
}

export interface ArgCheck {
  ok: boolean;
  wrong: string[];
}

/** Compares the observed arguments with the case's expected ones; names every wrong field. */
export function checkArgs(c: EvalCase, o: Observed, marketIds: Map<string, string>, senderCurrency: string): ArgCheck {
  const want = c.expect.args ?? {};
  const got = o.args;
  const wrong: string[] = [];
  const amount = (w: unknown, g: unknown, f = 'amount') => {
    if (decimal(w) === undefined || decimal(w) !== decimal(g)) wrong.push(`${f}: want ${String(w)}, got ${String(g)}`);
  };
  const currency = (w: unknown, g: unknown) => {
    if (String(w).toUpperCase() !== String(g ?? '').toUpperCase()) wrong.push(`currency: want ${String(w)}, got ${String(g)}`);
  };
  switch (c.expect.action) {
    case 'transfer':
      if (!sameRecipient(String(want.recipient), got)) wrong.push(`recipient: want ${String(want.recipient)}, got ${String(got.recipient_label ?? got.recipient)}`);
      amount(want.amount, got.amount);
      currency(want.currency, got.currency ?? senderCurrency);
      break;
    case 'bill':
      if (String(got.biller_id) !== String(want.biller_id)) wrong.push(`biller_id: want ${String(want.biller_id)}, got ${String(got.biller_id)}`);
      if (!samePhoneOrNumber(want.account_number, got.account_number)) wrong.push(`account_number: want ${String(want.account_number)}, got ${String(got.account_number)}`);
      amount(want.amount, got.amount);
      if (want.currency !== undefined) currency(want.currency, got.currency);
      break;
    case 'market_stake':
    case 'market_resolve': {
      const id = marketIds.get(String(want.market));
      if (!id || got.market_id !== id) wrong.push(`market: want ${String(want.market)} (${id}), got ${String(got.market_id)}`);
      if (fold(got.outcome) !== fold(want.outcome)) wrong.push(`outcome: want ${String(want.outcome)}, got ${String(got.outcome)}`);
      if (c.expect.action === 'market_stake') {
        amount(want.amount, got.amount);
        currency(want.currency, got.currency ?? senderCurrency);
      }
      break;
    }
    case 'market_create': {
      const q = fold(got.question);
      for (const word of (want.question_has as string[] | undefined) ?? []) if (!q.includes(fold(word))) wrong.push(`question lacks "${word}": ${String(got.question)}`);
      const outs = want.outcomes as string[] | undefined;
      const gotOuts = ((got.outcomes as string[] | undefined) ?? []).map(fold).sort();
      if (outs && JSON.stringify(outs.map(fold).sort()) !== JSON.stringify(gotOuts)) wrong.push(`outcomes: want ${outs.join('/')}, got ${gotOuts.join('/')}`);
      break;
    }
    case 'market_list':
      if (want.status !== undefined && got.status !== want.status) wrong.push(`status: want ${String(want.status)}, got ${String(got.status)}`);
      break;
    case 'payment_link':
      amount(want.amount, got.amount);
      currency(want.currency, got.currency);
      break;
    // Payments are fixture slots of the sender ("settled", "held"), seeded by the runner as `<from>/<slot>`.
    case 'refund':
    case 'capture':
    case 'void': {
      const id = marketIds.get(`${c.from}/${String(want.payment)}`);
      if (!id || got.payment_id !== id) wrong.push(`payment: want ${String(want.payment)} (${id}), got ${String(got.payment_id)}`);
      if (want.amount !== undefined) amount(want.amount, got.amount);
      break;
    }
    case 'quote': {
      const values = scalars(got.result).map((s) => s.trim());
      const numbers = new Set(values.map(decimal).filter((d): d is string => d !== undefined));
      const upper = new Set(values.map((s) => s.toUpperCase()));
      if (!numbers.has(decimal(want.amount)!)) wrong.push(`quote lacks amount ${String(want.amount)}`);
      if (!upper.has(String(want.currency).toUpperCase())) wrong.push(`quote lacks currency ${String(want.currency)}`);
      const to = want.to as string | undefined;
      if (to && !values.some((v) => (to.startsWith('@') ? fold(v).split(/\s/)[0] === fold(to) : v.toUpperCase() === to.toUpperCase())))
        wrong.push(`quote lacks ${to}`);
      break;
    }
    default:
      break;
  }
  return { ok: wrong.length === 0, wrong };
}

// ------------------------------------------------------------------ the report

export interface CaseResult {
  id: string;
  set: EvalSetName;
  lang: Lang;
  message: string;
  expected: EvalAction;
  moves: boolean;
  observed: Observed;
  actionOk: boolean;
  argsOk: boolean;
  wrongArgs: string[];
  /** Sent as `{message}` (acts at once), not as a preview. */
  executed: boolean;
  /** A money-moving case of the real-execution sample (checked on chain). */
  sampled: boolean;
  /** Change of the sender's on-chain balance (base units) across the message. */
  senderDelta: bigint;
  /** Money moved although the case says none may. */
  forbiddenMove: boolean;
  /** A money-moving action with the wrong action or arguments (moved, or would have on confirm). */
  wrongMove: boolean;
  /** The chain disagrees with what the answer reported. */
  chainMismatch?: string;
  reply: string;
}

export interface EvalReport {
  results: CaseResult[];
  total: number;
  actionAccuracy: number;
  argumentAccuracy: number;
  fullAccuracy: number;
  forbiddenMoves: number;
  wrongMoves: number;
  chainMismatches: number;
  executed: number;
  sampled: number;
  perSet: Record<string, { total: number; actionAccuracy: number; fullAccuracy: number }>;
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);

export function summarize(results: CaseResult[]): EvalReport {
  const withArgs = results.filter((r) => r.actionOk && r.expected !== 'none');
  const perSet: EvalReport['perSet'] = {};
  for (const set of ['dev', 'held-out', 'unseen', 'fresh', 'corridor', 'corridor-2', 'corridor-3', 'corridor-4', 'corridor-5', 'corridor-6', 'corridor-7', 'corridor-8', 'corridor-9', 'corridor-10', 'corridor-11', 'corridor-12'] as const) {
    const rs = results.filter((r) => r.set === set);
    if (rs.length) perSet[set] = { total: rs.length, actionAccuracy: ratio(rs.filter((r) => r.actionOk).length, rs.length), fullAccuracy: ratio(rs.filter((r) => r.actionOk && r.argsOk).length, rs.length) };
  }
  return {
    results,
    total: results.length,
    actionAccuracy: ratio(results.filter((r) => r.actionOk).length, results.length),
    argumentAccuracy: ratio(withArgs.filter((r) => r.argsOk).length, withArgs.length),
    fullAccuracy: ratio(results.filter((r) => r.actionOk && r.argsOk).length, results.length),
    forbiddenMoves: results.filter((r) => r.forbiddenMove).length,
    wrongMoves: results.filter((r) => r.wrongMove).length,
    chainMismatches: results.filter((r) => r.chainMismatch).length,
    executed: results.filter((r) => r.executed).length,
    sampled: results.filter((r) => r.sampled).length,
    perSet,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The printed report: totals, per-set, the language x action table, and (dev only) the misses. */
export function formatReport(report: EvalReport, opts: { showHeldOutFailures?: boolean; maxFailures?: number } = {}): string {
  const lines: string[] = [];
  lines.push(
    `Agent eval: ${report.total} messages. ${report.executed - report.sampled} that must move no money sent to act at once, ` +
      `${report.sampled} money-moving ones executed on chain, ${report.total - report.executed} previewed (confirm:false)`,
  );
  lines.push(`  action accuracy    ${pct(report.actionAccuracy)}`);
  lines.push(`  argument accuracy  ${pct(report.argumentAccuracy)}  (of messages whose action was right)`);
  lines.push(`  fully right        ${pct(report.fullAccuracy)}`);
  lines.push(`  money moved on a message that must not move any: ${report.forbiddenMoves}`);
  lines.push(`  money-moving action with wrong action or arguments (moved or would on confirm): ${report.wrongMoves}`);
  lines.push(`  chain disagreeing with the answer: ${report.chainMismatches}`);
  for (const [set, s] of Object.entries(report.perSet)) lines.push(`  ${set.padEnd(9)} ${s.total} messages, action ${pct(s.actionAccuracy)}, fully right ${pct(s.fullAccuracy)}`);
  lines.push('');
  lines.push(...table(report.results));
  const misses = report.results.filter((r) => (!r.actionOk || !r.argsOk || r.forbiddenMove || r.chainMismatch) && (r.set === 'dev' || opts.showHeldOutFailures));
  const hidden = report.results.filter((r) => (!r.actionOk || !r.argsOk) && r.set === 'held-out' && !opts.showHeldOutFailures).length;
  if (misses.length) {
    lines.push('');
    lines.push(`Misses (${misses.length}${hidden ? `; ${hidden} held-out misses not shown` : ''}):`);
    for (const r of misses.slice(0, opts.maxFailures ?? 1000)) {
      const got = `${r.observed.action}${r.observed.reason ? `/${r.observed.reason}` : ''}`;
      const flags = [r.forbiddenMove ? 'MOVED MONEY' : '', r.chainMismatch ? `CHAIN: ${r.chainMismatch}` : ''].filter(Boolean).join(' ');
      lines.push(`  ${r.id} [${r.expected} -> ${got}] ${JSON.stringify(r.message)}${r.wrongArgs.length ? ` :: ${r.wrongArgs.join('; ')}` : ''}${flags ? ` ${flags}` : ''}`);
    }
  } else if (hidden) {
    lines.push('', `${hidden} held-out misses not shown.`);
  }
  return lines.join('\n');
}

/** Rows: languages; columns: expected actions; cells: fully right / total. */
function table(results: CaseResult[]): string[] {
  const cols = ACTIONS.filter((a) => results.some((r) => r.expected === a));
  const short: Record<string, string> = {
    transfer: 'transfer',
    bill: 'bill',
    market_create: 'mkt new',
    market_stake: 'mkt stake',
    market_list: 'mkt list',
    market_resolve: 'mkt resolve',
    payment_link: 'link',
    balance: 'balance',
    quote: 'quote',
    activity: 'activity',
    refund: 'refund',
    capture: 'capture',
    void: 'void',
    none: 'no-move',
  };
  const w = 12;
  const out = [`${'lang'.padEnd(5)}|${cols.map((c) => short[c]!.padStart(w)).join('')}${'all'.padStart(w)}`];
  out.push('-'.repeat(out[0]!.length));
  const cell = (rs: CaseResult[]) => (rs.length ? `${rs.filter((r) => r.actionOk && r.argsOk).length}/${rs.length}` : '-').padStart(w);
  for (const lang of [...LANGS, 'all' as const]) {
    const rs = lang === 'all' ? results : results.filter((r) => r.lang === lang);
    if (!rs.length) continue;
    out.push(`${lang.padEnd(5)}|${cols.map((c) => cell(rs.filter((r) => r.expected === c))).join('')}${cell(rs)}`);
  }
  out.push('(cells: action and arguments right / messages)');
  return out;
}
