import { writeFile } from 'node:fs/promises';
import { parseUnits, type Address } from 'viem';
import { createMerchant, startTestService, type TestService } from '../../helpers/service.js';
import type { Engine } from '../../../src/agent/engine.js';
import { formatServed } from './served-report.js';
import { seedMerchantPayments } from './merchant-seed.js';
import {
  ACT_AT_ONCE_SETS,
  MERCHANT_ACTIONS,
  MONEY_MOVING,
  billerIds,
  checkArgs,
  formatReport,
  loadCases,
  loadFixtures,
  observe,
  summarize,
  type CaseResult,
  type EvalCase,
  type EvalReport,
  type EvalSetName,
  type FixtureAccount,
} from './score.js';

/**
 * Scores the evaluation set through the real POST /api/agent/settle: a real service on a
 * loopback port, the local engine (no ANTHROPIC_API_KEY), the embedded anvil chain, the
 * fixture accounts signed up through the API and funded on chain.
 *
 * - A message that must move no money is sent as `{message}` (the turn acts at once, the
 *   dangerous mode) and the sender's on-chain balance is read before and after.
 * - A message that should move money is sent as `{message, confirm:false}` (preview: the
 *   resolved action and its arguments, nothing moved); every `executeEvery`-th one of them
 *   is instead sent as `{message}`, executed for real, and the chain is checked against the
 *   answer (sender debited exactly what the answer reports, recipient credited).
 *
 * `npm run eval:agent [-- --set dev|held-out|unseen|all] [--show-held-out] [--json file]`
 */

export interface RunOptions {
  sets?: EvalSetName[];
  /** Every n-th money-moving case runs for real (default 5); 0 previews all. */
  executeEvery?: number;
  /** Progress output (default none). */
  log?: (line: string) => void;
  /** Use this service instead of starting one (it must run the local engine). */
  service?: TestService;
  /** Score this engine instead of the local one (the oracle test checks the set with one). */
  engine?: Engine;
  /** Only the cases this keeps (tests of the runner itself). */
  filter?: (c: EvalCase) => boolean;
}

interface Seeded {
  key: string;
  accountId: string;
  address: Address;
  currency: string;
}

const USDC = (s: string) => parseUnits(s, 6);
/** Senders under LOW are topped up to FLOOR (a wrong move must not spoil the messages after it). */
const LOW = USDC('500');
const FLOOR = USDC('1500');

export async function runEval(opts: RunOptions = {}): Promise<EvalReport> {
  const sets = opts.sets ?? ['dev', 'held-out'];
  const executeEvery = opts.executeEvery ?? 5;
  const log = opts.log ?? (() => {});
  const svc = opts.service ?? (await startTestService({ AGENT_RATE_LIMIT: '1000000/min' }, opts.engine ? { engine: opts.engine } : {}));
  try {
    if (!opts.engine && svc.deps.agent.engineName !== 'local') throw new Error('the eval scores the local engine: unset ANTHROPIC_API_KEY');
    const fixtures = loadFixtures();
    const billers = billerIds();
    const accounts = await seedAccounts(svc, fixtures.accounts);
    const marketIds = await seedMarkets(svc, fixtures, accounts);
    const balanceOf = (a: Address) => svc.deps.chain.balanceOf(a);

    const results: CaseResult[] = [];
    let movingSeen = 0;
    for (const set of sets) {
      const cases = loadCases(set).filter(opts.filter ?? (() => true));
      log(`${set}: ${cases.length} messages`);
      // The merchant set's payments: a settled one and an authorized (held) one per sender, as `<from>/<slot>`.
      // Any set may name them (the corridor sets hold a refund per language), so the senders of every such case
      // get them, afresh for each set: a refund in one set must not leave the next set's "refund {settled}" of
      // the same sender an already-refunded payment.
      const slotted = cases.filter((c) => /\{(settled|held)\}/.test(c.message));
      if (slotted.length) await seedMerchantPayments(svc, slotted, accounts, marketIds);
      for (const [i, c] of cases.entries()) {
        const sender = accounts.get(c.from);
        if (!sender) throw new Error(`${c.id}: unknown fixture account ${c.from}`);
        const atOnce = ACT_AT_ONCE_SETS.has(set);
        const executeForReal =
          c.moves && MONEY_MOVING.has(c.expect.action) && c.expect.action !== 'market_resolve' && !MERCHANT_ACTIONS.has(c.expect.action) && (atOnce || (executeEvery > 0 && movingSeen++ % executeEvery === 0));
        // The merchant set names the sender's own seeded payments by slot: "refund {settled}".
        c.message = c.message.replace(/\{(\w+)\}/g, (_m, slot: string) => marketIds.get(`${c.from}/${slot}`) ?? `{${slot}}`);
        // A set sent to act at once sends a refund, capture or void as `{message}` too (never chain-checked here:
        // the money leaves the settlement wallet); elsewhere they are previewed.
        const preview = c.moves && !executeForReal && !atOnce;
        await topUp(svc, sender);

        const recipient = recipientOf(c, accounts);
        const [before, recipientBefore] = await Promise.all([balanceOf(sender.address), recipient ? balanceOf(recipient.address) : Promise.resolve(0n)]);
        const r = await settle(svc, sender.key, preview ? { message: c.message, confirm: false } : { message: c.message });
        const [after, recipientAfter] = await Promise.all([balanceOf(sender.address), recipient ? balanceOf(recipient.address) : Promise.resolve(0n)]);

        const observed = observe(r.status, r.body, billers);
        // An action that was understood but refused (422) is not the action the user asked for:
        // every fixture is funded and valid, so only a 'none' case may end in a 422.
        const actionOk = observed.action === c.expect.action && (c.expect.action === 'none' || observed.status === 200);
        const args = actionOk ? checkArgs(c, observed, marketIds, sender.currency) : { ok: false, wrong: [] };
        const senderDelta = after - before;
        const result: CaseResult = {
          id: c.id,
          set,
          lang: c.lang,
          message: c.message,
          expected: c.expect.action,
          moves: c.moves,
          observed,
          actionOk,
          argsOk: args.ok,
          wrongArgs: args.wrong,
          executed: !preview,
          sampled: executeForReal,
          senderDelta,
          forbiddenMove: !c.moves && (senderDelta !== 0n || observed.moved),
          wrongMove: c.moves && MONEY_MOVING.has(observed.action) && !(actionOk && args.ok),
          reply: typeof r.body?.reply === 'string' ? r.body.reply : '',
        };
        if (preview && senderDelta !== 0n) result.chainMismatch = `a preview moved ${senderDelta} base units`;
        if (executeForReal) {
          const mismatch = chainCheck(r.body, observed.moved, senderDelta, recipient ? recipientAfter - recipientBefore : undefined);
          if (mismatch) result.chainMismatch = mismatch;
        }
        results.push(result);
        if ((i + 1) % 50 === 0) log(`  ${set} ${i + 1}/${cases.length}`);
      }
      // Each set meets only the fixture markets: a market an earlier set's message created ("create a market:
      // will Gilas…") must not make a later stake ask "which market?".
      await cancelRunMarkets(svc, new Set(marketIds.values()));
    }
    return summarize(results);
  } finally {
    if (!opts.service) await svc.stop({ removeData: true });
  }
}

/**
 * One POST /api/agent/settle. Plain fetch, not the tests' `call()`: the OpenAPI conformance
 * tests judge the document; here an answer the document does not describe is still scored.
 */
async function settle(svc: TestService, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.api}/agent/settle`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** The fixture account a transfer case pays, when it is one (its balance is checked too). */
function recipientOf(c: EvalCase, accounts: Map<string, Seeded>): Seeded | undefined {
  const to = c.expect.args?.recipient;
  if (c.expect.action !== 'transfer' || typeof to !== 'string' || !to.startsWith('@')) return undefined;
  const seeded = accounts.get(to.slice(1));
  return seeded && seeded.key !== accounts.get(c.from)?.key ? seeded : undefined;
}

/**
 * The chain must show what the answer says: a sender debited exactly the reported amount
 * (transfer: total debit, or the amount while the fee is still pending), a recipient account
 * credited the stablecoin amount, and nothing at all when nothing was reported moved.
 */
function chainCheck(body: Record<string, any>, moved: boolean, senderDelta: bigint, recipientDelta: bigint | undefined): string | undefined {
  if (!moved) return senderDelta === 0n ? undefined : `nothing reported moved, sender changed by ${senderDelta}`;
  const act = String(body.action);
  const r = body[act] ?? {};
  if (!['settled', 'completed', 'paid'].includes(String(r.status))) return undefined; // still confirming: not checkable yet
  const amount = BigInt(r.stablecoin_amount_base_units ?? 0);
  if (act === 'transfer') {
    const total = BigInt(r.total_debit_base_units ?? amount);
    const okSender = senderDelta === -total || (r.fee_status !== 'settled' && senderDelta === -amount);
    if (!okSender) return `sender changed by ${senderDelta}, answer says ${-total}`;
    if (recipientDelta !== undefined && r.recipient_account_id && recipientDelta !== amount) return `recipient changed by ${recipientDelta}, answer says ${amount}`;
    return undefined;
  }
  return senderDelta === -amount ? undefined : `sender changed by ${senderDelta}, answer says ${-amount}`;
}

async function seedAccounts(svc: TestService, fixtures: FixtureAccount[]): Promise<Map<string, Seeded>> {
  const seeded = new Map<string, Seeded>();
  for (const f of fixtures) {
    const m = await createMerchant(svc.api, f.name);
    await svc.deps.accounts.update(m.accountId, {
      country: f.country,
      localCurrency: f.currency,
      telegramUsername: f.key,
      ...(f.phone ? { phone: f.phone } : {}),
      // A wrong move early in the run must not hit the daily limit of later messages.
      limits: { perTransfer: USDC('2000').toString(), daily: USDC('1000000').toString() },
    });
    const account = (await svc.deps.accounts.get(m.accountId))!;
    const address = svc.deps.chain.custodialAddress(account.walletIndex);
    if (f.fund) {
      const res = await svc.deps.chain.faucet(address, USDC(f.fund), { nativeAmount: 0n });
      if (!res.ok) throw new Error(`funding ${f.key}: ${res.message}`);
    }
    seeded.set(f.key, { key: m.key, accountId: m.accountId, address, currency: f.currency });
  }
  return seeded;
}

async function seedMarkets(svc: TestService, fixtures: ReturnType<typeof loadFixtures>, accounts: Map<string, Seeded>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const markets = svc.deps.markets;
  if (!markets) throw new Error('the service has no markets module');
  const closes = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
  for (const m of fixtures.markets) {
    const creator = accounts.get(m.creator)!;
    const res = await markets.create(creator.accountId, { question: m.question, outcomes: m.outcomes, closes_at: closes });
    if (!res.ok) throw new Error(`market ${m.key}: ${res.message}`);
    ids.set(m.key, res.market.id);
  }
  return ids;
}

/** Cancels every open market the run's messages created (the fixture markets, `keep`, stay). */
async function cancelRunMarkets(svc: TestService, keep: ReadonlySet<string>): Promise<void> {
  const markets = svc.deps.markets!;
  for (const m of await markets.list({}, { limit: 10_000 })) {
    if (keep.has(m.id) || m.status !== 'open') continue;
    const res = await markets.cancel(m.creatorAccountId, { market: m.id });
    if (!res.ok) throw new Error(`cancelling run market ${m.id}: ${res.message}`);
  }
}

async function topUp(svc: TestService, s: Seeded): Promise<void> {
  const have = await svc.deps.chain.balanceOf(s.address);
  if (have >= LOW) return;
  const res = await svc.deps.chain.faucet(s.address, FLOOR - have, { nativeAmount: 0n });
  if (!res.ok) throw new Error(`top-up: ${res.message}`);
}

// ------------------------------------------------------------------ CLI

async function main(argv: string[]): Promise<number> {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const set = arg('--set') ?? 'all';
  // `all` is the five sets scored since issue 25 (figures stay comparable); the corridor sets are named: `--set corridor,corridor-2`.
  const sets: EvalSetName[] = set === 'all' ? ['dev', 'held-out', 'unseen', 'fresh', 'merchant'] : (set.split(',') as EvalSetName[]);
  const started = Date.now();
  const report = await runEval({ sets, log: (l) => process.stderr.write(l + '\n') });
  process.stdout.write(formatReport(report, { showHeldOutFailures: argv.includes('--show-held-out') }) + '\n');
  const atOnce = report.results.filter((r) => ACT_AT_ONCE_SETS.has(r.set));
  if (atOnce.length) process.stdout.write(`\nSent to act at once (${[...new Set(atOnce.map((r) => r.set))].join(', ')}):\n${formatServed(atOnce)}\n`);
  process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  const json = arg('--json');
  if (json) await writeFile(json, JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2));
  return report.actionAccuracy >= 0.95 && report.forbiddenMoves === 0 && report.chainMismatches === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(2);
    },
  );
}
