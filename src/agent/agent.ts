import type { Logger } from 'pino';
import { newId } from '../lib/ids.js';
import { MONEY_MOVING_TOOLS, type ToolCall } from './tool-inputs.js';
import {
  TOOL_ACTIONS,
  ToolFailureReason,
  describeCall,
  executeCall,
  toToolCall,
  type Channel,
  type ToolContext,
  type ToolHandlers,
  type ToolOutcome,
} from './tools.js';
import type { Engine } from './engine.js';
import { type PendingAction } from './pending-actions.js';
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';
import type { Metrics } from '../metrics/port.js';
import { QUOTED_ONLY_REPLY } from './grounding/index.js';
import { failure, fromOutcome, pendingResult, view, type PendingActionView, type TurnOutcome, type TurnRequest } from './turn-outcome.js';
import { runEngineTurn } from './turn-runner.js';

export { UNAVAILABLE, type AgentAction, type PendingActionView, type TurnOutcome, type TurnRequest } from './turn-outcome.js';

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
  /** Turns by outcome, for operators (docs/metrics.md). */
  metrics?: Pick<Metrics, 'agentTurn'>;
}

export const PENDING_TTL_MS = 10 * 60_000;

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
    const outcome = await this.turn(req);
    this.opts.metrics?.agentTurn(outcome.ok ? (outcome.pending ? 'pending' : 'ok') : (outcome.reason ?? 'failed'));
    return outcome;
  }

  private async turn(req: TurnRequest): Promise<TurnOutcome> {
    const { accountId, channel, requestId } = req;
    const log = this.opts.logger.child({ requestId, accountId, channel });
    const account = await this.opts.accounts.get(accountId);
    if (!account) return failure('none', 'Your account could not be found.', 'not_allowed');
    // Never the message text at info: it is personal data.
    log.info({ engine: this.opts.engine.name }, 'agent turn');
    log.debug({ message: req.message }, 'agent turn message');
    const quoted = (req.quoted ?? []).filter((q) => q.trim());
    if (!req.message.trim() && quoted.length) return { ok: true, action: 'none', reply: QUOTED_ONLY_REPLY, reason: 'quoted_only' };

    const ctx = { accountId, channel, logger: log, localCurrency: account.localCurrency, ...(requestId ? { requestId } : {}) };
    return runEngineTurn(
      {
        engine: this.opts.engine,
        handlers: this.opts.handlers,
        now: this.now,
        execute: (call, c) => this.execute(call, c),
        createPending: (call, description, details) => this.createPending(accountId, channel, call, description, details, requestId),
      },
      req,
      ctx,
      quoted,
    );
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
      const pending = await this.createPending(accountId, channel, call, preview.description, preview.details, requestId);
      log.info({ tool: call.name, actionId: pending.id }, 'pending action created');
      return pendingResult(pending);
    }
    return fromOutcome(await this.execute(call, ctx));
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

  private async createPending(
    accountId: string,
    channel: Channel,
    call: ToolCall,
    description: string,
    details: Record<string, unknown> | undefined,
    requestId: string | undefined,
  ): Promise<PendingAction> {
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
    return this.opts.actions.move(id, 'executing', { status: 'done', outcome, updatedAt: this.now().toISOString() });
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
