import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { Agent, PENDING_TTL_MS } from '../../src/agent/agent.js';
import { LocalEngine, type LocalParseResult } from '../../src/agent/local-engine.js';
import { PendingActions } from '../../src/agent/pending-tool-call.js';
import type { ToolCall } from '../../src/agent/tool-inputs.js';
import type { LowdbStore } from '../../src/store/index.js';
import pino from 'pino';
import { Writable } from 'node:stream';
import { fakeAccounts, fakeHandlers, silentLogger, tempStore } from './fakes.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';

const ALICE = 'acct_alice0000000000000000';
const BOB = 'acct_bob000000000000000000';

const TRANSFER: ToolCall = { name: 'send_transfer', input: { recipient: '@amina', amount: '5000', currency: 'KES' } };
const LINK: ToolCall = { name: 'create_payment_link', input: { amount: '2500' } };

/** A scripted parser: each test message maps to one parse result. */
const script: Record<string, LocalParseResult> = {
  'send 5,000 KES to @amina': { kind: 'tool', call: TRANSFER },
  'payment link for 2500': { kind: 'tool', call: LINK },
  'send from acct_X to me': { kind: 'refuse', reply: 'I can only move money from your own account.' },
  help: { kind: 'help' },
  'what?': { kind: 'none', reply: "Sorry, I didn't understand." },
};
const parse = (text: string): LocalParseResult => script[text] ?? { kind: 'none', reply: 'no script' };

describe('Agent confirmation protocol', () => {
  let store: LowdbStore;
  let clock: Date;
  let fake: ReturnType<typeof fakeHandlers>;
  let agent: Agent;

  const build = (f: ReturnType<typeof fakeHandlers>) =>
    new Agent({ engine: new LocalEngine({ parse }), handlers: f.handlers, actions: new PendingActionsStore(store), logger: silentLogger(), accounts: fakeAccounts, now: () => clock });

  beforeEach(async () => {
    store = await tempStore();
    clock = new Date('2030-01-01T12:00:00.000Z');
    fake = fakeHandlers();
    agent = build(fake);
  });
  afterEach(async () => {
    await store.close();
  });

  it('at start-up, settles actions a previous run left executing as interrupted, and never runs them', async () => {
    const held = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = held.pending!.id;
    // What a stop in the middle of carrying it out leaves behind.
    await store.write(PendingActions, (t) => t.update(id, { status: 'executing' }));
    const other = await agent.runTurn({ accountId: BOB, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const restarted = build(fake);
    expect(await restarted.recoverInterrupted()).toBe(1);
    expect(await store.table(PendingActions).get(id)).toMatchObject({ status: 'done', outcome: { ok: false, action: 'transfer', reason: 'interrupted' } });
    expect((await store.table(PendingActions).get(other.pending!.id))!.status).toBe('pending');
    const tap = await restarted.confirm(ALICE, id);
    expect(tap.ok).toBe(false);
    expect(tap).toMatchObject({ ok: false, reason: 'interrupted', already: true });
    expect(tap.reply).toMatch(/^Already handled\. The service restarted/);
    expect(fake.calls).toEqual([]);
    expect(await restarted.recoverInterrupted()).toBe(0);
  });

  it('acts at once through the API', async () => {
    const r = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'api', requestId: 'req_1' });
    expect(r.ok).toBe(true);
    expect(r).toMatchObject({ ok: true, action: 'transfer', reply: 'send_transfer done.' });
    expect(r.result).toEqual({ tool: 'send_transfer', input: TRANSFER.input });
    expect(r.pending).toBeUndefined();
    expect(fake.calls).toEqual([{ name: 'send_transfer', input: TRANSFER.input, ctx: { accountId: ALICE, channel: 'api', requestId: 'req_1' } }]);
    expect(await store.table(PendingActions).count()).toBe(0);
  });

  it.each(['chat', 'telegram'] as const)('holds a money-moving call as a pending action through %s', async (channel) => {
    const r = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel });
    expect(r.ok).toBe(true);
    expect(r.action).toBe('transfer');
    const pa = r.pending!;
    expect(pa.id).toMatch(/^act_[0-9A-Za-z]{24}$/);
    expect(pa.status).toBe('pending');
    expect(pa.expires_at).toBe(new Date(clock.getTime() + PENDING_TTL_MS).toISOString());
    expect(pa.description).toBe('Send 5000 KES to @amina.');
    expect(r.reply).toContain('Send 5000 KES to @amina.');
    expect(r.reply).toContain('Confirm');
    expect(fake.calls).toEqual([]);
    const row = await store.table(PendingActions).get(pa.id);
    expect(row).toMatchObject({ accountId: ALICE, channel, status: 'pending', call: TRANSFER });
  });

  it('runs non-money tools at once in every channel', async () => {
    const r = await agent.runTurn({ accountId: ALICE, message: 'payment link for 2500', channel: 'chat' });
    expect(r.ok).toBe(true);
    expect(r).toMatchObject({ ok: true, action: 'payment' });
    expect(r.pending).toBeUndefined();
    expect(fake.calls.map((c) => c.name)).toEqual(['create_payment_link']);
  });

  it('uses the handler preview as the exact description, and a failing preview is a 422 with nothing held', async () => {
    fake = fakeHandlers({
      previews: {
        send_transfer: (i) =>
          i.recipient === '@amina'
            ? { ok: true, description: 'Send 5,000.00 KES (38.46 USDC at 130 KES/USDC, fee 0) to @amina (Amina W.).', details: { rate: '130' } }
            : { ok: false, action: 'transfer', reason: 'unknown_recipient', message: 'No user @nobody.' },
      },
    });
    agent = build(fake);
    const r = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    expect(r.pending!.description).toBe('Send 5,000.00 KES (38.46 USDC at 130 KES/USDC, fee 0) to @amina (Amina W.).');
    expect(r.result).toMatchObject({ status: 'awaiting_confirmation', rate: '130' });

    script['send 1 to @nobody'] = { kind: 'tool', call: { name: 'send_transfer', input: { recipient: '@nobody', amount: '1' } } };
    const bad = await agent.runTurn({ accountId: ALICE, message: 'send 1 to @nobody', channel: 'chat' });
    expect(bad.ok).toBe(false);
    expect(bad).toMatchObject({ ok: false, action: 'transfer', reason: 'unknown_recipient', reply: 'No user @nobody.' });
    expect(bad.pending).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  it('confirm executes the stored arguments exactly once, even when tapped twice at the same time', async () => {
    let open!: () => void;
    fake = fakeHandlers({ gate: new Promise<void>((r) => (open = r)) });
    agent = build(fake);
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = turn.pending!.id;

    const first = agent.confirm(ALICE, id, { requestId: 'req_c1' });
    const second = agent.confirm(ALICE, id, { requestId: 'req_c2' });
    open();
    const [a, b] = await Promise.all([first, second]);

    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toEqual({ name: 'send_transfer', input: TRANSFER.input, ctx: { accountId: ALICE, channel: 'chat', requestId: 'req_c1' } });
    for (const r of [a, b]) {
      expect(r.ok).toBe(true);
      expect(r).toMatchObject({ ok: true, action: 'transfer', reply: 'send_transfer done.' });
    }
    expect((await store.table(PendingActions).get(id))?.status).toBe('done');

    const third = await agent.confirm(ALICE, id);
    expect(third.ok).toBe(true);
    expect(third.already).toBe(true);
    expect(third.reply).toMatch(/^Already done\./);
    expect(fake.calls).toHaveLength(1);
    // Once done it cannot be cancelled.
    const cancel = await agent.cancel(ALICE, id);
    expect(cancel.ok).toBe(false);
    expect(cancel.reason).toBe('already_done');
  });

  it('two agents sharing the store (two processes) still execute once: the store compare-and-set decides', async () => {
    let open!: () => void;
    fake = fakeHandlers({ gate: new Promise<void>((r) => (open = r)) });
    agent = build(fake);
    const other = build(fake);
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = turn.pending!.id;
    const first = agent.confirm(ALICE, id);
    const second = other.confirm(ALICE, id);
    const loser = await second; // the store said "not pending" while the first one executes
    open();
    const winner = await first;
    expect(fake.calls).toHaveLength(1);
    expect(winner.ok).toBe(true);
    expect(loser.ok).toBe(false);
    expect(loser).toMatchObject({ ok: false, reason: 'in_progress' });
  });

  it('a failing execution on confirm is a 422 carrying the reason, recorded once', async () => {
    fake = fakeHandlers({
      outcomes: { send_transfer: () => ({ ok: false, action: 'transfer', reason: 'insufficient_balance', message: 'Not enough USDC.' }) },
    });
    agent = build(fake);
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'telegram' });
    const r = await agent.confirm(ALICE, turn.pending!.id);
    expect(r.ok).toBe(false);
    expect(r).toMatchObject({ ok: false, action: 'transfer', reason: 'insufficient_balance', reply: 'Not enough USDC.' });
    const again = await agent.confirm(ALICE, turn.pending!.id);
    expect(again.ok).toBe(false);
    expect(fake.calls).toHaveLength(1);
  });

  it('cancel discards the action; a later confirm executes nothing', async () => {
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = turn.pending!.id;
    const c = await agent.cancel(ALICE, id);
    expect(c.ok).toBe(true);
    expect(c).toMatchObject({ ok: true, action: 'none', pending: { id, status: 'cancelled' } });
    expect((await agent.cancel(ALICE, id)).ok).toBe(true);
    const r = await agent.confirm(ALICE, id);
    expect(r.ok).toBe(false);
    expect(r.reason).toBe('cancelled');
    expect(fake.calls).toEqual([]);
  });

  it('an expired action cannot be confirmed', async () => {
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = turn.pending!.id;
    clock = new Date(clock.getTime() + PENDING_TTL_MS);
    const r = await agent.confirm(ALICE, id);
    expect(r.ok).toBe(false);
    expect(r).toMatchObject({ ok: false, reason: 'expired' });
    expect(fake.calls).toEqual([]);
    expect((await store.table(PendingActions).get(id))?.status).toBe('expired');
  });

  it("another account cannot confirm or cancel someone's action, and learns nothing about it", async () => {
    const turn = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat' });
    const id = turn.pending!.id;
    const unknown = await agent.confirm(BOB, 'act_doesnotexist000000000000');
    const foreign = await agent.confirm(BOB, id);
    expect(foreign.ok).toBe(false);
    expect(foreign).toEqual(unknown);
    expect(foreign.pending).toBeUndefined();
    expect((await agent.cancel(BOB, id)).ok).toBe(false);
    expect(fake.calls).toEqual([]);
    // The owner still can.
    const mine = await agent.confirm(ALICE, id);
    expect(mine.ok).toBe(true);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.ctx.accountId).toBe(ALICE);
  });

  it('a refusal is a 422 with nothing executed; help and none answer without tools', async () => {
    const refused = await agent.runTurn({ accountId: ALICE, message: 'send from acct_X to me', channel: 'api' });
    expect(refused).toEqual({ ok: false, action: 'none', reply: 'I can only move money from your own account.', reason: 'not_allowed' });
    const help = await agent.runTurn({ accountId: ALICE, message: 'help', channel: 'api' });
    expect(help.ok).toBe(true);
    expect(help).toMatchObject({ ok: true, action: 'info' });
    expect(help.reply).toContain('send money');
    const none = await agent.runTurn({ accountId: ALICE, message: 'what?', channel: 'chat' });
    expect(none).toEqual({ ok: true, action: 'none', reply: "Sorry, I didn't understand." });
    expect(fake.calls).toEqual([]);
    expect(await store.table(PendingActions).count()).toBe(0);
  });

  it('logs every executed action with request and account id, and never the message text at info', async () => {
    const lines: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const logged = new Agent({ engine: new LocalEngine({ parse }), handlers: fake.handlers, actions: new PendingActionsStore(store), logger: pino({ level: 'info' }, sink), accounts: fakeAccounts, now: () => clock });
    await logged.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'api', requestId: 'req_log' });
    const held = await logged.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'chat', requestId: 'req_log2' });
    await logged.confirm(ALICE, held.pending!.id, { requestId: 'req_log3' });
    const executed = lines.filter((l) => l.msg === 'agent action executed');
    expect(executed.map((l) => [l.requestId, l.accountId, l.tool, l.ok])).toEqual([
      ['req_log', ALICE, 'send_transfer', true],
      ['req_log3', ALICE, 'send_transfer', true],
    ]);
    expect(JSON.stringify(lines)).not.toContain('5,000 KES to @amina');
  });

  it('a handler failure through the API is a 422 naming the reason', async () => {
    fake = fakeHandlers({ outcomes: { send_transfer: () => ({ ok: false, action: 'transfer', reason: 'over_limit', message: 'Over your daily limit.' }) } });
    agent = build(fake);
    const r = await agent.runTurn({ accountId: ALICE, message: 'send 5,000 KES to @amina', channel: 'api' });
    expect(r).toEqual({ ok: false, action: 'transfer', reply: 'Over your daily limit.', reason: 'over_limit' });
  });
});
