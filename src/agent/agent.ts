import { createHash } from 'node:crypto';
import { canonicalJson } from '../payments/payments.js';
import { accountRead, TurnReads, turnReadsFor } from '../lib/turn-reads.js';
import { MONEY_MOVING_TOOLS, type ToolCall } from './tool-inputs.js';
import { TOOL_ACTIONS, ToolFailureReason, describeCall, toToolCall, type Channel, type ToolContext, type ToolOutcome } from './tool-calls.js';
import type { Engine, ToolRunner } from './engine.js';
import { withoutClaimTokens } from './claim-tools.js';
import { answerHeld } from './held-answers.js';
import { type PendingAction } from './pending-tool-call.js';
import { groundCall, QUOTED_ONLY_REPLY } from './grounding/index.js';
import { marketsShown } from './grounding/markets-shown.js';
import { finishTurn, type TurnState } from './turn-finish.js';
import { interruptedOutcome, isStoreUnavailable, isUnknown } from './outcome-unknown.js';
import { admitCall, refusalOutcome, runGoverned } from './policy-hook.js';
import { ParkedClaims } from './parked-claims.js';
import { failure, fromOutcome, pendingResult, settledAnswer, view, type PendingActionView, type TurnOutcome } from './turn-outcomes.js';
import { markMode } from './test-mode-note.js';
import type { AgentOptions, TurnRequest } from './agent-types.js';
import { heldActionRow, type HeldActionInput } from './held-action-row.js';

export type { AgentAction, PendingActionView, TurnOutcome } from './turn-outcomes.js';
export { UNAVAILABLE } from './turn-finish.js';

export type { AgentOptions, TurnRequest } from './agent-types.js';

export const PENDING_TTL_MS = 10 * 60_000;

/** The door a person (or, for `api`, a key) confirmed a pending action through. */
export type ConfirmDoor = 'chat' | 'telegram' | 'web' | 'api';

/**
 * One plain-language message -> at most a few tool calls -> one reply. Through the API the
 * turn acts at once; through Telegram and the chat widget a money-moving call becomes a
 * pending action that only `confirm` executes, with exactly the stored arguments, once.
 */
export class Agent {
  private readonly ttlMs: number;
  private readonly now: () => Date;
  /** Confirms in flight, so a concurrent second tap shares the first one's outcome. */
  private readonly inflight = new Map<string, Promise<TurnOutcome>>();
  /** Claims whose action wrote nothing and whose give-back failed too: given back later, never run twice. */
  private readonly parked: ParkedClaims;

  constructor(private readonly opts: AgentOptions) {
    this.ttlMs = opts.pendingTtlMs ?? PENDING_TTL_MS;
    this.now = opts.now ?? (() => new Date());
    this.parked = new ParkedClaims(opts.actions, this.now);
  }

  /** Gives back the claims a failed store kept `executing` (./parked-claims.ts); how many are left. Per instance. */
  releaseParked = (): Promise<number> => (this.parked.size ? this.parked.retryAll() : Promise.resolve(0));

  get engineName(): Engine['name'] {
    return this.opts.engine.name;
  }

  async runTurn(req: TurnRequest): Promise<TurnOutcome> {
    const outcome = markMode(await this.turn(req), req.livemode, req.message);
    this.opts.metrics?.agentTurn(outcome.ok ? (outcome.pending ? 'pending' : 'ok') : (outcome.reason ?? 'failed'));
    return outcome;
  }

  private async turn(req: TurnRequest): Promise<TurnOutcome> {
    const { accountId, channel, requestId } = req;
    const log = this.opts.logger.child({ requestId, accountId, channel });
    const reads = turnReadsFor(req); // this turn's only: the next turn reads policies afresh
    const account = await reads.once(accountRead(accountId), () => this.opts.accounts.get(accountId));
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    // Never the message text at info: it is personal data.
    log.info({ engine: this.opts.engine.name }, 'agent turn');
    log.debug({ message: req.message }, 'agent turn message');
    // "yes", "cancel", "sawa"… typed under a held action (people's doors): about that action, never a new reading.
    // A correction ("make it 3k", "actually to @bola") replaces it with a new held action (./held-answers.ts).
    if (channel === 'chat' || channel === 'telegram') {
      const held = { actions: this.opts.actions, now: this.now, cancel: (a: string, id: string) => this.cancel(a, id), hold: this.holdCorrected };
      const answer = await answerHeld(held, accountId, channel, req.message, account.localCurrency, requestId);
      if (answer) return answer;
    }
    const quoted = (req.quoted ?? []).filter((q) => q.trim());
    if (!req.message.trim() && quoted.length) return { ok: true, action: 'none', reply: QUOTED_ONLY_REPLY, reason: 'quoted_only' };

    const ctx: ToolContext = { accountId, channel, logger: log, localCurrency: account.localCurrency, reads, ...(requestId ? { requestId } : {}), ...(req.keyId ? { keyId: req.keyId } : {}), ...(req.livemode === false ? { livemode: false as const } : {}) };
    const state: TurnState = { outcomes: [], rejected: [], markets: [] };
    const runTool: ToolRunner = async (name, input, runOpts) => {
      // Grounding ended the turn: nothing else runs in it, whatever the engine asks next.
      if (state.ended) return { kind: 'ended', message: state.ended.reply };
      const checked = toToolCall(name, input);
      if (!checked.ok) {
        state.rejected.push(checked.message);
        log.info({ tool: name }, 'tool call rejected: invalid input');
        return { kind: 'rejected', message: checked.message };
      }
      const call = checked.call;
      const moving = MONEY_MOVING_TOOLS.has(call.name);
      // One money-moving action per message: the turn reports one outcome, and the user saw one action.
      if (moving && (state.pending || state.outcomes.some((o) => MONEY_MOVING_TOOLS.has(o.call.name)))) {
        log.info({ tool: call.name }, 'tool call rejected: second money-moving action in one message');
        return { kind: 'rejected', message: 'Only one action that moves money can be done per message; ask the user to send the next one separately.' };
      }
      // Grounding (./grounding): every argument in the person's own words, the request past the gate.
      const grounding = moving ? groundCall({ call, message: req.message, quoted, localCurrency: account.localCurrency, now: this.now(), markets: state.markets }) : { kind: 'act' as const };
      if (grounding.kind === 'end') {
        // A refusal (not_grounded, injection…) is a 422 naming the action; a gate answer (negation, question) a 200 `none`.
        state.ended = grounding.refuse
          ? failure(TOOL_ACTIONS[call.name], grounding.reply, grounding.reason)
          : { ok: true, action: 'none', reply: grounding.reply, reason: grounding.reason };
        log.warn({ tool: call.name, reason: grounding.reason, missing: grounding.missing }, 'money-moving call stopped by grounding; turn ended');
        return { kind: 'ended', message: grounding.reply };
      }
      if (grounding.kind === 'hold') state.heldNote = grounding.note;
      // Spend policies (docs/policies.md): a rule may refuse it, or hold it for the person.
      const admitted = await admitCall(this.opts.policies, call, ctx);
      if (admitted.kind === 'refuse') {
        const outcome = refusalOutcome(call, admitted);
        state.outcomes.push({ call, outcome });
        return { kind: 'executed', outcome };
      }
      // A call the engine holds (it did not understand the whole message) waits for a person, on every channel.
      if ((channel !== 'api' || req.preview || runOpts?.hold || grounding.kind === 'hold' || admitted.kind === 'hold') && moving) {
        const preview = await describeCall(call, ctx, this.opts.handlers);
        if (!preview.ok) {
          state.outcomes.push({ call, outcome: preview });
          log.info({ tool: call.name, ok: false, reason: preview.reason }, 'pending action refused by preview');
          return { kind: 'executed', outcome: preview };
        }
        const description = runOpts?.describe?.(call.name, preview.details) ?? preview.description;
        state.pending = await this.createPending({ accountId, channel, call, description, details: preview.details, requestId, keyId: ctx.keyId, approval: admitted.kind === 'hold' ? admitted.message : undefined, input: preview.input, livemode: ctx.livemode });
        log.info({ tool: call.name, actionId: state.pending.id }, 'pending action created');
        return { kind: 'pending', description };
      }
      const outcome = await this.execute(call, ctx);
      // The database failed once the action had begun: the turn ends with that answer, whatever the engine says next.
      if (isUnknown(outcome)) {
        state.ended = fromOutcome(outcome);
        return { kind: 'ended', message: outcome.message };
      }
      // A lookup the engine makes to decide (never money-moving) is not the turn's answer.
      if (runOpts?.lookup && !moving) return { kind: 'executed', outcome };
      state.outcomes.push({ call, outcome });
      state.markets.push(...marketsShown(outcome));
      return { kind: 'executed', outcome };
    };

    const turn = { accountId, channel, message: req.message, localCurrency: account.localCurrency, now: this.now(), logger: log };
    return finishTurn(await this.opts.engine.run({ ...turn, ...(requestId ? { requestId } : {}), ...(quoted.length ? { quoted } : {}) }, runTool), state);
  }

  /** Previews a corrected held call (./held-answers.ts) and holds it anew, in the old one's door, key and mode. */
  private holdCorrected = async (row: PendingAction, call: ToolCall, localCurrency: string, requestId?: string): Promise<TurnOutcome> => {
    const ctx: ToolContext = { accountId: row.accountId, channel: row.channel, logger: this.opts.logger.child({ requestId, accountId: row.accountId }), localCurrency, reads: new TurnReads(), ...(requestId ? { requestId } : {}), ...(row.keyId ? { keyId: row.keyId } : {}), ...(row.livemode === false ? { livemode: false as const } : {}) };
    const admitted = await admitCall(this.opts.policies, call, ctx);
    if (admitted.kind === 'refuse') return fromOutcome(refusalOutcome(call, admitted));
    const preview = await describeCall(call, ctx, this.opts.handlers);
    if (!preview.ok) return fromOutcome(preview);
    return pendingResult(await this.createPending({ accountId: row.accountId, channel: row.channel, call, description: preview.description, details: preview.details, requestId, keyId: ctx.keyId, approval: admitted.kind === 'hold' ? admitted.message : undefined, input: preview.input, livemode: ctx.livemode }));
  };

  /**
   * One tool call named by the caller itself (an MCP client), not read from a message. Money-moving
   * tools never run here: they become a pending action that a person confirms (`confirm`), exactly
   * as from the chat and Telegram. Other tools run at once.
   */
  async callTool(req: { accountId: string; channel: Channel; name: string; input: unknown; requestId?: string; keyId?: string; livemode?: boolean }): Promise<TurnOutcome> {
    return markMode(await this.oneTool(req), req.livemode);
  }

  private async oneTool(req: { accountId: string; channel: Channel; name: string; input: unknown; requestId?: string; keyId?: string }): Promise<TurnOutcome> {
    const { accountId, channel, requestId } = req;
    const log = this.opts.logger.child({ requestId, accountId, channel });
    const account = await this.opts.accounts.get(accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    const checked = toToolCall(req.name, req.input);
    if (!checked.ok) return failure('none', checked.message, ToolFailureReason.invalid_input);
    const call = checked.call;
    const ctx: ToolContext = { accountId, channel, logger: log, localCurrency: account.localCurrency, reads: new TurnReads(), ...(requestId ? { requestId } : {}), ...(req.keyId ? { keyId: req.keyId } : {}) };
    let asked: string | undefined;
    if (MONEY_MOVING_TOOLS.has(call.name)) {
      // A client retrying the same call (a lost answer, a timeout) gets the action it already holds, not a second
      // one the person could confirm too: one confirmation page per move asked for, while it waits.
      asked = createHash('sha256').update(canonicalJson(call) ?? '').digest('hex');
      const waiting = await this.opts.actions.pendingAsked(accountId, channel, ctx.keyId, asked, this.now());
      if (waiting) {
        log.info({ tool: call.name, actionId: waiting.id }, 'identical call answered by its waiting pending action');
        return pendingResult(waiting);
      }
    }
    const admitted = await admitCall(this.opts.policies, call, ctx);
    if (admitted.kind === 'refuse') return fromOutcome(refusalOutcome(call, admitted));
    if (MONEY_MOVING_TOOLS.has(call.name)) {
      const preview = await describeCall(call, ctx, this.opts.handlers);
      if (!preview.ok) return fromOutcome(preview);
      const pending = await this.createPending({ accountId, channel, call, description: preview.description, details: preview.details, requestId, keyId: ctx.keyId, approval: admitted.kind === 'hold' ? admitted.message : undefined, input: preview.input, asked });
      log.info({ tool: call.name, actionId: pending.id }, 'pending action created');
      return pendingResult(pending);
    }
    return fromOutcome(await this.execute(call, ctx));
  }

  /**
   * Runs one validated call at once for a door that acts without a Confirm step (the API's
   * `{quote_id}` confirm: the caller already saw the firm quote's figures).
   */
  async act(req: { accountId: string; call: ToolCall; requestId?: string; keyId?: string; livemode?: boolean }): Promise<TurnOutcome> {
    return markMode(await this.actNow(req), req.livemode);
  }

  private async actNow(req: { accountId: string; call: ToolCall; requestId?: string; keyId?: string }): Promise<TurnOutcome> {
    const log = this.opts.logger.child({ requestId: req.requestId, accountId: req.accountId, channel: 'api' });
    const account = await this.opts.accounts.get(req.accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    const ctx: ToolContext = { accountId: req.accountId, channel: 'api', logger: log, localCurrency: account.localCurrency, reads: new TurnReads(), ...(req.requestId ? { requestId: req.requestId } : {}), ...(req.keyId ? { keyId: req.keyId } : {}) };
    // The key's spend policy holds here as on every door: a rule may refuse it or hold it for the person.
    const admitted = await admitCall(this.opts.policies, req.call, ctx);
    if (admitted.kind === 'refuse') return fromOutcome(refusalOutcome(req.call, admitted));
    if (admitted.kind === 'hold') {
      const preview = await describeCall(req.call, ctx, this.opts.handlers);
      if (!preview.ok) return fromOutcome(preview);
      const pending = await this.createPending({ accountId: req.accountId, channel: 'api', call: req.call, description: preview.description, details: preview.details, requestId: req.requestId, keyId: req.keyId, approval: admitted.message, input: preview.input });
      return pendingResult(pending);
    }
    return fromOutcome(await this.execute(req.call, ctx));
  }

  /** One action for its confirmation page: the view plus where and when it was asked for. */
  async pendingAction(accountId: string, actionId: string): Promise<(PendingActionView & { channel: string; created_at: string; key_id?: string }) | undefined> {
    const row = await this.own(accountId, actionId);
    if (!row) return undefined;
    // Which door, when, and through which secret key (the confirmation page names it).
    const asked = { channel: row.channel, created_at: row.createdAt, ...(row.keyId ? { key_id: row.keyId } : {}) };
    if (row.status === 'pending' && this.isExpired(row)) {
      await this.markExpired(row);
      return { ...view({ ...row, status: 'expired' }), ...asked };
    }
    return { ...view(row), ...asked };
  }

  private async execute(call: ToolCall, ctx: ToolContext, person = !ctx.keyId): Promise<ToolOutcome> {
    const outcome = await runGoverned(this.opts.policies, this.opts.handlers, call, ctx, person);
    ctx.logger.info(
      { tool: call.name, action: outcome.action, ok: outcome.ok, ...(outcome.ok ? {} : { reason: outcome.reason }) },
      'agent action executed',
    );
    return outcome;
  }

  private async createPending(i: HeldActionInput): Promise<PendingAction> {
    return this.opts.actions.insert(await heldActionRow(i, this.now(), this.ttlMs, this.opts.livemodeOfKey));
  }

  /**
   * The account's own pending action, or undefined (another account's does not exist for it);
   * with `channel`, only one held through that door (an API key cannot confirm a chat's action).
   */
  private async own(accountId: string, actionId: string, channel?: Channel): Promise<PendingAction | undefined> {
    const row = await this.opts.actions.get(actionId);
    // This process's own claim a failed store left `executing` although nothing was written: pending again first (./parked-claims.ts).
    return row && row.accountId === accountId && (!channel || row.channel === channel) ? this.parked.restored(row) : undefined;
  }

  private isExpired(p: PendingAction): boolean {
    return this.now().getTime() >= Date.parse(p.expiresAt);
  }

  private async markExpired(p: PendingAction): Promise<void> {
    await this.opts.actions.move(p.id, 'pending', { status: 'expired', updatedAt: this.now().toISOString() });
  }

  /**
   * Executes a pending action's STORED call, exactly once: pending -> executing is a
   * compare-and-set, so a double tap or a concurrent confirm cannot run it twice.
   */
  async confirm(accountId: string, actionId: string, opts: { requestId?: string; channel?: Channel; via?: ConfirmDoor } = {}): Promise<TurnOutcome> {
    const row = await this.own(accountId, actionId, opts.channel);
    if (!row) return failure('none', 'There is no pending action with that id.', 'not_found');
    // Held by a spend policy's approval threshold: only the signed-in person confirms it.
    if (row.approval && opts.channel === 'api') return failure(TOOL_ACTIONS[row.call.name], `${row.approval} An API key cannot confirm it.`, 'approval_required', view(row));
    const running = this.inflight.get(actionId);
    if (running) return running;
    // A test key's held action moves test money, whoever confirms it (and a repeat says so too).
    const run = this.confirmOwned(row, opts.requestId, opts.via ?? (opts.channel === 'api' ? 'api' : 'chat')).then((o) => markMode(o, row.livemode));
    this.inflight.set(actionId, run);
    const forget = () => {
      if (this.inflight.get(actionId) === run) this.inflight.delete(actionId);
    };
    run.then(forget, forget);
    return run;
  }

  private async confirmOwned(row: PendingAction, requestId: string | undefined, via: ConfirmDoor): Promise<TurnOutcome> {
    const log = this.opts.logger.child({ requestId, accountId: row.accountId, channel: row.channel, actionId: row.id });
    if (row.status === 'pending' && this.isExpired(row)) {
      await this.markExpired(row);
      return settledAnswer({ ...row, status: 'expired' });
    }
    const claimed = await this.opts.actions.move(row.id, 'pending', {
      status: 'executing',
      executor: this.opts.instance?.id,
      // Who approved, through which door, when: the signed receipt's record (src/receipts).
      confirmedVia: via,
      confirmedAt: this.now().toISOString(),
      updatedAt: this.now().toISOString(),
    });
    if (!claimed) {
      const current = await this.opts.actions.get(row.id);
      return settledAnswer(current ?? row);
    }
    // Its mode is the one it was asked in (a test key's, or the chat's test-data view), whoever confirms.
    const ctx: ToolContext = { accountId: claimed.accountId, channel: claimed.channel, logger: log, ...(requestId ? { requestId } : {}), ...(claimed.keyId ? { keyId: claimed.keyId } : {}), ...(claimed.livemode === false ? { livemode: false as const } : {}) };
    let outcome: ToolOutcome;
    try {
      const account = await this.opts.accounts.get(claimed.accountId);
      if (account) ctx.localCurrency = account.localCurrency;
      outcome = await this.execute(claimed.call, ctx, via !== 'api');
    } catch (err) {
      // Nothing written, held or sent yet (else runGoverned answers outcome_unknown): pending again, so the 503's retry carries it out.
      if (isStoreUnavailable(err)) throw await this.parked.release(claimed).then(() => err);
      // Whether money moved is unknown: record it, never run it again, and let the caller see a 500.
      outcome = {
        ok: false,
        action: TOOL_ACTIONS[claimed.call.name],
        reason: 'internal_error',
        message: 'Something went wrong while carrying this out. Check your balance and history before trying again.',
      };
      await this.recordDone(claimed.id, outcome);
      throw err;
    }
    // Outcome unknown (the database failed mid-action): the answer says so even if it cannot be recorded yet.
    const done = await this.recordDone(claimed.id, outcome).catch((err: unknown) => (isUnknown(outcome) ? undefined : Promise.reject(err)));
    return fromOutcome(outcome, undefined, { pending: view(done ?? { ...claimed, status: 'done', outcome }) });
  }

  /**
   * Settles actions a previous run left `executing` (it stopped mid-way); call at start-up, before any confirm can run here.
   * Each becomes `done`, `interrupted` (check balance and history; the money modules' sweep finishes the money itself),
   * never run again, instead of "already being carried out" forever. Returns how many were settled.
   */
  async recoverInterrupted(): Promise<number> {
    const stuck = await this.opts.actions.executing();
    let settled = 0;
    for (const row of stuck) {
      // Another live instance is carrying this one out: not interrupted.
      if (this.opts.instance && (await this.opts.instance.isLive(row.executor))) continue;
      if (await this.recordDone(row.id, interruptedOutcome(TOOL_ACTIONS[row.call.name]))) {
        settled++;
        this.opts.logger.warn({ actionId: row.id, accountId: row.accountId, tool: row.call.name }, 'pending action interrupted by a restart; marked done (outcome unknown)');
      }
    }
    return settled;
  }

  private recordDone(id: string, outcome: ToolOutcome): Promise<PendingAction | undefined> {
    // A claim link's token is shown once and never stored (docs/claims.md).
    return this.opts.actions.move(id, 'executing', { status: 'done', outcome: withoutClaimTokens(outcome), updatedAt: this.now().toISOString() });
  }

  /** Discards a pending action; cancelling twice (or an expired one) is harmless. */
  async cancel(accountId: string, actionId: string): Promise<TurnOutcome> {
    const row = await this.own(accountId, actionId);
    if (!row) return failure('none', 'There is no pending action with that id.', 'not_found');
    if (row.status === 'pending' && this.isExpired(row)) await this.markExpired(row);
    const cancelled = await this.opts.actions.move(row.id, 'pending', { status: 'cancelled', updatedAt: this.now().toISOString() });
    const current = cancelled ?? (await this.opts.actions.get(row.id)) ?? row;
    const pending = view(current);
    if (cancelled) {
      this.opts.logger.info({ accountId, actionId, tool: row.call.name }, 'pending action cancelled');
      return { ok: true, action: 'none', reply: 'Cancelled. Nothing was done.', pending };
    }
    switch (current.status) {
      case 'cancelled':
        return { ok: true, action: 'none', reply: 'Already cancelled. Nothing was done.', pending };
      case 'expired':
        return { ok: true, action: 'none', reply: 'That action had expired. Nothing was done.', pending };
      default:
        return failure(TOOL_ACTIONS[current.call.name], 'This action has already been carried out and cannot be cancelled.', 'already_done', pending);
    }
  }

  /** A pending action as its owner sees it (for bridges that re-render buttons). */
  async getPending(accountId: string, actionId: string): Promise<PendingActionView | undefined> {
    const row = await this.own(accountId, actionId);
    if (!row) return undefined;
    return view(row.status === 'pending' && this.isExpired(row) ? { ...row, status: 'expired' } : row);
  }
}
