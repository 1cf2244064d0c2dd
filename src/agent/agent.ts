import type { Logger } from 'pino';
import { newId } from '../lib/ids.js';
import { MONEY_MOVING_TOOLS, type ToolCall, type ToolName } from './tool-inputs.js';
import {
  TOOL_ACTIONS,
  ToolFailureReason,
  describeCall,
  executeCall,
  toToolCall,
  type Channel,
  type ToolAction,
  type ToolContext,
  type ToolHandlers,
  type ToolOutcome,
} from './tools.js';
import { UNAVAILABLE_REPLY, type Engine, type EngineResult, type ToolRunner } from './engine.js';
import { HELP_EXAMPLES } from './local-engine.js';
import { withoutClaimTokens } from './claim-tools.js';
import { type PendingAction, type PendingStatus } from './pending-actions.js';
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';

export type AgentAction = ToolAction | 'none';

export interface PendingActionView {
  id: string;
  expires_at: string;
  description: string;
  status: PendingStatus;
  tool: ToolName;
}

/** Why a turn could not be answered at all: the model provider failed after retries. */
export const UNAVAILABLE = 'unavailable';

/**
 * The turn's outcome, in the agent's own terms (no HTTP status: each door maps it with its own
 * table). `action` names what happened and `result` carries its record (ids, amounts, rate,
 * status, tx hash); `reason` names why a failed turn was not done (`unavailable`: the model
 * provider failed, nothing was read); `pending` is the action awaiting the user's Confirm that
 * the turn (or a confirm/cancel) concerns; `already` marks a late confirm answered with the
 * action's first outcome. `turnJson` (./turn-json.ts) is its documented JSON.
 */
export interface TurnOutcome {
  ok: boolean;
  action: AgentAction;
  reply: string;
  reason?: string;
  pending?: PendingActionView;
  result?: unknown;
  already?: true;
}

export interface TurnRequest {
  /** From authentication only (key, session, Telegram user): never from the message. */
  accountId: string;
  message: string;
  channel: Channel;
  requestId?: string;
  /** Hold a money-moving call as a pending action even through the API (`confirm: false`). */
  preview?: boolean;
}

export interface AgentOptions {
  engine: Engine;
  handlers: ToolHandlers;
  /** Where pending actions are kept (`new PendingActionsStore(store)`). */
  actions: PendingActionsStore<PendingAction>;
  logger: Logger;
  accounts: { get(id: string): Promise<{ localCurrency: string } | undefined> };
  /** How long a pending action can be confirmed (default 10 minutes). */
  pendingTtlMs?: number;
  /** Clock (tests move it to expire actions). */
  now?: () => Date;
  /** This instance, among several on one database: executing actions carry its id. */
  instance?: { id: string; isLive(owner: string | undefined): Promise<boolean> };
}

export const PENDING_TTL_MS = 10 * 60_000;

const failure = (action: AgentAction, reply: string, reason: string, pending?: PendingActionView): TurnOutcome => ({
  ok: false,
  action,
  reply,
  reason,
  ...(pending ? { pending } : {}),
});

function view(p: PendingAction): PendingActionView {
  return { id: p.id, expires_at: p.expiresAt, description: p.description, status: p.status, tool: p.call.name };
}

function fromOutcome(outcome: ToolOutcome, reply?: string, extra: Pick<TurnOutcome, 'pending' | 'already'> = {}): TurnOutcome {
  if (outcome.ok) return { ok: true, action: outcome.action, reply: reply ?? outcome.summary, result: outcome.result, ...extra };
  return { ok: false, action: outcome.action, reply: reply ?? outcome.message, reason: outcome.reason, ...extra };
}

interface TurnState {
  outcomes: { call: ToolCall; outcome: ToolOutcome }[];
  pending?: PendingAction;
  rejected: string[];
}

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

  constructor(private readonly opts: AgentOptions) {
    this.ttlMs = opts.pendingTtlMs ?? PENDING_TTL_MS;
    this.now = opts.now ?? (() => new Date());
  }

  get engineName(): Engine['name'] {
    return this.opts.engine.name;
  }

  async runTurn(req: TurnRequest): Promise<TurnOutcome> {
    const { accountId, channel, requestId } = req;
    const log = this.opts.logger.child({ requestId, accountId, channel });
    const account = await this.opts.accounts.get(accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    // Never the message text at info: it is personal data.
    log.info({ engine: this.opts.engine.name }, 'agent turn');
    log.debug({ message: req.message }, 'agent turn message');

    const ctx: ToolContext = { accountId, channel, logger: log, localCurrency: account.localCurrency, ...(requestId ? { requestId } : {}) };
    const state: TurnState = { outcomes: [], rejected: [] };
    const runTool: ToolRunner = async (name, input) => {
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
      if ((channel !== 'api' || req.preview) && moving) {
        const preview = await describeCall(call, ctx, this.opts.handlers);
        if (!preview.ok) {
          state.outcomes.push({ call, outcome: preview });
          log.info({ tool: call.name, ok: false, reason: preview.reason }, 'pending action refused by preview');
          return { kind: 'executed', outcome: preview };
        }
        state.pending = await this.createPending(accountId, channel, call, preview.description, preview.details, requestId, preview.input);
        log.info({ tool: call.name, actionId: state.pending.id }, 'pending action created');
        return { kind: 'pending', description: preview.description };
      }
      const outcome = await this.execute(call, ctx);
      state.outcomes.push({ call, outcome });
      return { kind: 'executed', outcome };
    };

    const result = await this.opts.engine.run(
      { accountId, channel, message: req.message, localCurrency: account.localCurrency, now: this.now(), logger: log, ...(requestId ? { requestId } : {}) },
      runTool,
    );
    return this.finish(result, state);
  }

  /**
   * One tool call named by the caller itself (an MCP client), not read from a message. Money-moving
   * tools never run here: they become a pending action that a person confirms (`confirm`), exactly
   * as from the chat and Telegram. Other tools run at once.
   */
  async callTool(req: { accountId: string; channel: Channel; name: string; input: unknown; requestId?: string }): Promise<TurnOutcome> {
    const { accountId, channel, requestId } = req;
    const log = this.opts.logger.child({ requestId, accountId, channel });
    const account = await this.opts.accounts.get(accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    const checked = toToolCall(req.name, req.input);
    if (!checked.ok) return failure('none', checked.message, ToolFailureReason.invalid_input);
    const call = checked.call;
    const ctx: ToolContext = { accountId, channel, logger: log, localCurrency: account.localCurrency, ...(requestId ? { requestId } : {}) };
    if (MONEY_MOVING_TOOLS.has(call.name)) {
      const preview = await describeCall(call, ctx, this.opts.handlers);
      if (!preview.ok) return fromOutcome(preview);
      const pending = await this.createPending(accountId, channel, call, preview.description, preview.details, requestId, preview.input);
      log.info({ tool: call.name, actionId: pending.id }, 'pending action created');
      return this.pendingResult(pending);
    }
    return fromOutcome(await this.execute(call, ctx));
  }

  /**
   * Runs one validated call at once for a door that acts without a Confirm step (the API's
   * `{quote_id}` confirm: the caller already saw the firm quote's figures).
   */
  async act(req: { accountId: string; call: ToolCall; requestId?: string }): Promise<TurnOutcome> {
    const log = this.opts.logger.child({ requestId: req.requestId, accountId: req.accountId, channel: 'api' });
    const account = await this.opts.accounts.get(req.accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    const ctx: ToolContext = { accountId: req.accountId, channel: 'api', logger: log, localCurrency: account.localCurrency, ...(req.requestId ? { requestId: req.requestId } : {}) };
    return fromOutcome(await this.execute(req.call, ctx));
  }

  /** The account's own pending action as shown to its owner, or undefined. */
  async pendingAction(accountId: string, actionId: string): Promise<PendingActionView | undefined> {
    const row = await this.own(accountId, actionId);
    if (!row) return undefined;
    if (row.status === 'pending' && this.isExpired(row)) {
      await this.markExpired(row);
      return view({ ...row, status: 'expired' });
    }
    return view(row);
  }

  private async execute(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
    const outcome = await executeCall(this.opts.handlers, call, ctx);
    ctx.logger.info(
      { tool: call.name, action: outcome.action, ok: outcome.ok, ...(outcome.ok ? {} : { reason: outcome.reason }) },
      'agent action executed',
    );
    return outcome;
  }

  private finish(result: EngineResult, state: TurnState): TurnOutcome {
    if (state.pending) return this.pendingResult(state.pending);
    if (state.outcomes.length > 0) {
      // The turn reports its money-moving outcome if it had one, else its last one.
      const primary =
        [...state.outcomes].reverse().find((o) => MONEY_MOVING_TOOLS.has(o.call.name)) ?? state.outcomes[state.outcomes.length - 1]!;
      const text = result.kind === 'reply' ? result.text : undefined;
      // Money that moved is reported from the tool's own exact summary, never the model's paraphrase.
      const exact = primary.outcome.ok && MONEY_MOVING_TOOLS.has(primary.call.name);
      // A lead in the user's language may go before the exact summary, never replace it.
      const led = result.kind === 'reply' && result.lead && primary.outcome.ok ? `${result.lead}${primary.outcome.summary}` : undefined;
      return fromOutcome(primary.outcome, exact ? led : (text ?? led));
    }
    switch (result.kind) {
      case 'refuse':
        return failure('none', result.reply, result.reason ?? 'not_allowed');
      case 'unavailable':
        return { ok: false, action: 'none', reply: UNAVAILABLE_REPLY, reason: UNAVAILABLE };
      case 'help':
        return { ok: true, action: 'info', reply: result.reply, result: { topic: 'help', examples: HELP_EXAMPLES } };
      case 'none':
        return { ok: true, action: 'none', reply: result.reply, ...(result.reason ? { reason: result.reason } : {}) };
      case 'reply':
        if (!result.text && state.rejected.length > 0) {
          return failure('none', `I couldn't do that: ${state.rejected[state.rejected.length - 1]}`, 'invalid_input');
        }
        return { ok: true, action: 'info', reply: result.text ?? "Sorry, I couldn't work that out. Try rephrasing.", result: { topic: 'answer' } };
    }
  }

  private pendingResult(p: PendingAction): TurnOutcome {
    const action = TOOL_ACTIONS[p.call.name];
    const minutes = Math.max(1, Math.round((Date.parse(p.expiresAt) - Date.parse(p.createdAt)) / 60_000));
    return {
      ok: true,
      action,
      reply: `${p.description}\nConfirm to go ahead, or cancel. This expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      result: { status: 'awaiting_confirmation', tool: p.call.name, input: p.call.input, ...(p.details ?? {}) },
      pending: view(p),
    };
  }

  private async createPending(
    accountId: string,
    channel: Channel,
    call: ToolCall,
    description: string,
    details: Record<string, unknown> | undefined,
    requestId: string | undefined,
    input?: Record<string, unknown>,
  ): Promise<PendingAction> {
    // The preview may pin what it described (a firm quote's id): stored only if still valid input.
    const pinned = input ? toToolCall(call.name, input) : undefined;
    if (pinned?.ok) call = pinned.call;
    const now = this.now();
    const row: PendingAction = {
      id: newId('act'),
      accountId,
      channel,
      call,
      description,
      ...(details ? { details } : {}),
      status: 'pending',
      ...(requestId ? { requestId } : {}),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
      updatedAt: now.toISOString(),
    };
    return this.opts.actions.insert(row);
  }

  /**
   * The account's own pending action, or undefined (another account's does not exist for it);
   * with `channel`, only one held through that door (an API key cannot confirm a chat's action).
   */
  private async own(accountId: string, actionId: string, channel?: Channel): Promise<PendingAction | undefined> {
    const row = await this.opts.actions.get(actionId);
    return row && row.accountId === accountId && (!channel || row.channel === channel) ? row : undefined;
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
  async confirm(accountId: string, actionId: string, opts: { requestId?: string; channel?: Channel } = {}): Promise<TurnOutcome> {
    const row = await this.own(accountId, actionId, opts.channel);
    if (!row) return failure('none', 'There is no pending action with that id.', 'not_found');
    const running = this.inflight.get(actionId);
    if (running) return running;
    const run = this.confirmOwned(row, opts.requestId);
    this.inflight.set(actionId, run);
    const forget = () => {
      if (this.inflight.get(actionId) === run) this.inflight.delete(actionId);
    };
    run.then(forget, forget);
    return run;
  }

  private async confirmOwned(row: PendingAction, requestId: string | undefined): Promise<TurnOutcome> {
    const log = this.opts.logger.child({ requestId, accountId: row.accountId, channel: row.channel, actionId: row.id });
    if (row.status === 'pending' && this.isExpired(row)) {
      await this.markExpired(row);
      return this.settledAnswer({ ...row, status: 'expired' });
    }
    const claimed = await this.opts.actions.move(row.id, 'pending', {
      status: 'executing',
      executor: this.opts.instance?.id,
      updatedAt: this.now().toISOString(),
    });
    if (!claimed) {
      const current = await this.opts.actions.get(row.id);
      return this.settledAnswer(current ?? row);
    }
    const ctx: ToolContext = { accountId: claimed.accountId, channel: claimed.channel, logger: log, ...(requestId ? { requestId } : {}) };
    const account = await this.opts.accounts.get(claimed.accountId);
    if (account) ctx.localCurrency = account.localCurrency;
    let outcome: ToolOutcome;
    try {
      outcome = await this.execute(claimed.call, ctx);
    } catch (err) {
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
    const done = await this.recordDone(claimed.id, outcome);
    return fromOutcome(outcome, undefined, { pending: view(done ?? { ...claimed, status: 'done', outcome }) });
  }

  /**
   * Settles actions a previous run left `executing` (it stopped mid-way). Call once at
   * start-up, before any confirm can run in this process: then no `executing` action is
   * still being carried out. Each becomes `done` with an `interrupted` outcome telling the
   * user to check their balance and history (the money modules' own sweep finishes or
   * fails the transfer, bill or stake itself), instead of "already being carried out"
   * forever. The action is never run again. Returns how many were settled.
   */
  async recoverInterrupted(): Promise<number> {
    const stuck = await this.opts.actions.executing();
    let settled = 0;
    for (const row of stuck) {
      // Another live instance is carrying this one out: not interrupted.
      if (this.opts.instance && (await this.opts.instance.isLive(row.executor))) continue;
      const outcome: ToolOutcome = {
        ok: false,
        action: TOOL_ACTIONS[row.call.name],
        reason: ToolFailureReason.interrupted,
        message: 'The service restarted while this was being carried out, so it may or may not have gone through. Check your balance and history before trying again.',
      };
      if (await this.recordDone(row.id, outcome)) {
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

  /** The answer for an action that is no longer pending (double tap, late tap). */
  private settledAnswer(p: PendingAction): TurnOutcome {
    const pending = view(p);
    const action = TOOL_ACTIONS[p.call.name];
    switch (p.status) {
      case 'done':
        return p.outcome
          ? fromOutcome(p.outcome, p.outcome.ok ? `Already done. ${p.outcome.summary}` : `Already handled. ${p.outcome.message}`, { pending, already: true })
          : { ok: true, action, reply: 'Already done.', pending, already: true };
      case 'executing':
        return failure(action, 'This action is already being carried out.', 'in_progress', pending);
      case 'cancelled':
        return failure(action, 'This action was cancelled; nothing was done.', 'cancelled', pending);
      case 'expired':
        return failure(action, 'This action expired before it was confirmed; nothing was done. Send your request again.', 'expired', pending);
      case 'pending':
        return failure(action, 'This action is still waiting for confirmation.', 'pending', pending);
    }
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
