import { newId } from '../lib/ids.js';
import { toToolCall, type Channel } from './tool-calls.js';
import type { ToolCall } from './tool-inputs.js';
import type { PendingAction } from './pending-tool-call.js';
import { testModeNote } from './test-mode-note.js';

/** What a held action is made of: the call as previewed, and who asked it through which door. */
export interface HeldActionInput {
  accountId: string;
  channel: Channel;
  call: ToolCall;
  description: string;
  details?: Record<string, unknown> | undefined;
  requestId?: string | undefined;
  keyId?: string | undefined;
  /** A spend policy's reason a person must approve it (an API key cannot). */
  approval?: string | undefined;
  /** The preview's pinned input (a firm quote's id): stored only if still valid input. */
  input?: Record<string, unknown> | undefined;
  /** false when asked in test mode (the chat's test view) whatever the key. */
  livemode?: false | undefined;
  /** The call's hash as a caller named it (MCP): a retried identical call answers this row. */
  asked?: string | undefined;
}

/**
 * The pending row for a held action, `pending` until `now + ttlMs`. A test key's (or test view's)
 * description ends with the test-mode note: it is what a person reads on the confirmation page.
 */
export async function heldActionRow(i: HeldActionInput, now: Date, ttlMs: number, livemodeOfKey?: (keyId: string) => Promise<boolean>): Promise<PendingAction> {
  const pinned = i.input ? toToolCall(i.call.name, i.input) : undefined;
  const call = pinned?.ok ? pinned.call : i.call;
  const test = i.livemode === false || (i.keyId && livemodeOfKey ? !(await livemodeOfKey(i.keyId)) : false);
  const description = test && !i.description.endsWith(testModeNote()) ? `${i.description} ${testModeNote()}` : i.description;
  return {
    id: newId('act'),
    accountId: i.accountId,
    channel: i.channel,
    call,
    description,
    ...(i.details ? { details: i.details } : {}),
    status: 'pending',
    ...(i.requestId ? { requestId: i.requestId } : {}),
    ...(i.keyId ? { keyId: i.keyId } : {}),
    ...(test ? { livemode: false as const } : {}),
    ...(i.approval ? { approval: i.approval } : {}),
    ...(i.asked ? { asked: i.asked } : {}),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
    updatedAt: now.toISOString(),
  };
}
