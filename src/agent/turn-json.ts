import { UNAVAILABLE, type TurnOutcome } from './agent.js';

/**
 * A turn's documented JSON (DESIGN.md 6): `{ok, action, reply, reason?, <action>: record,
 * pending_action?, already?}`, or `{ok:false, reply}` when the model provider was unavailable
 * (nothing was read, so no action). Shared by every door that answers JSON (the HTTP routes, MCP
 * structuredContent); the status code is each door's own.
 */
export interface TurnJson {
  ok: boolean;
  action?: TurnOutcome['action'];
  reply: string;
  reason?: string;
  pending_action?: NonNullable<TurnOutcome['pending']>;
  replaced_action?: NonNullable<TurnOutcome['replaced']>;
  already?: true;
  [record: string]: unknown;
}

export function turnJson(o: TurnOutcome): TurnJson {
  if (!o.ok && o.reason === UNAVAILABLE) return { ok: false, reply: o.reply };
  return {
    ok: o.ok,
    action: o.action,
    reply: o.reply,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
    ...(o.result !== undefined ? { [o.action]: o.result } : {}),
    ...(o.pending ? { pending_action: o.pending } : {}),
    ...(o.replaced ? { replaced_action: o.replaced } : {}),
    ...(o.already ? { already: o.already } : {}),
  };
}
