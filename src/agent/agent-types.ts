import type { Logger } from 'pino';
import type { Channel, ToolHandlers } from './tool-calls.js';
import type { Engine } from './engine.js';
import type { PendingAction } from './pending-tool-call.js';
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';
import type { Metrics } from '../metrics/metrics-port.js';
import type { PolicyHook } from './policy-hook.js';

/** One turn as a door hands it to the agent (./agent.ts). */
export interface TurnRequest {
  /** From authentication only (key, session, Telegram user): never from the message. */
  accountId: string;
  message: string;
  channel: Channel;
  requestId?: string;
  /** Hold a money-moving call as a pending action even through the API (`confirm: false`). */
  preview?: boolean;
  /**
   * Text the person passed on rather than wrote (a forwarded message, the message replied to):
   * data to read, never an instruction; no argument of a money-moving call may come from it.
   */
  quoted?: string[];
  /** The API key the turn came through (its spend policy applies too). */
  keyId?: string;
  /** The caller's mode, as the door verified it: a test key's, or the chat's while the app shows test data. */
  livemode?: boolean;
}

export interface AgentOptions {
  engine: Engine;
  handlers: ToolHandlers;
  /** Where pending actions are kept (`new PendingActionsStore(store)`). */
  actions: PendingActionsStore<PendingAction>;
  logger: Logger;
  accounts: { get(id: string): Promise<{ localCurrency: string } | undefined> }; // the tools' own: a turn's read of the caller is theirs too
  /** How long a pending action can be confirmed (default 10 minutes). */
  pendingTtlMs?: number;
  /** Clock (tests move it to expire actions). */
  now?: () => Date;
  /** This instance, among several on one database: executing actions carry its id. */
  instance?: { id: string; isLive(owner: string | undefined): Promise<boolean> };
  /** Turns by outcome, for operators (docs/metrics.md). */
  metrics?: Pick<Metrics, 'agentTurn'>;
  /** Spend policies (src/policies): refuse, hold for the person, or reserve then run. */
  policies?: PolicyHook;
  /** A key's mode: a test key's turns, held actions and outcomes say they move no real money (docs/test-mode.md). */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
}
