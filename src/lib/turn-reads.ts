/**
 * The reads one agent turn shares between its steps (docs/performance.md, "Issue 23, sixth
 * round"): the policy check before a call, the guard around it and the tool itself each need
 * the account, the recipient, the policies, the breaker and the key's mode. One `TurnReads`
 * is made per turn and dropped with it, so nothing read here outlives the turn: a policy
 * changed between two turns is read afresh by the second. Never a cache across turns.
 */
export class TurnReads {
  private readonly memo = new Map<string, Promise<unknown>>();

  /** `read()` the first time `key` is asked for in this turn; the same answer after that. */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.memo.get(key);
    if (known) return known as Promise<T>;
    const p = read();
    this.memo.set(key, p);
    // A failed read is not kept: the next step that needs it reads again, as it did before.
    p.catch(() => {
      if (this.memo.get(key) === p) this.memo.delete(key);
    });
    return p;
  }

  /** Drops what was read under `key` (a write of this turn changed it). */
  forget(key: string): void {
    this.memo.delete(key);
  }
}

/**
 * A turn's reads for its caller: the key's mode as the door verified it (the mode of a key never
 * changes), so no step of the turn looks the key up again.
 */
export function turnReadsFor(caller: { keyId?: string; livemode?: boolean }): TurnReads {
  const reads = new TurnReads();
  const { keyId, livemode } = caller;
  if (keyId && livemode !== undefined) void reads.once(keyModeRead(keyId), async () => livemode);
  return reads;
}

/** `reads.once(key, read)`, or just `read()` outside a turn. */
export function readOnce<T>(reads: TurnReads | undefined, key: string, read: () => Promise<T>): Promise<T> {
  return reads ? reads.once(key, read) : read();
}

/** An account by id under one name for every step of a turn (the agent reads the caller's first). */
export const accountRead = (id: string): string => `account:${id}`;

/** A key's mode under one name for every step of a turn (the guard's and the tools'). */
export const keyModeRead = (keyId: string): string => `key-mode:${keyId}`;
