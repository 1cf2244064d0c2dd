/**
 * What the members of a commit group running side by side (commit-groups.ts) have read and
 * written, told before each statement is issued (pg-table.ts), and whether the next statement
 * keeps the group equal to a serial run of its members.
 *
 * Side by side holds while no member reads or writes what another member writes: then every
 * statement sees the same rows in any serial order of the members. Reads alone may be shared
 * (seventeenth round: every settle of a burst read its account's webhook endpoints while their
 * cache was cold, which sent a whole group of up to 32 members in series, several times slower
 * than side by side). So:
 * - a row (`table#id`, or `table!fields=values` for a unique key an insert claims) may be read by
 *   many members, and written by one member that is alone in touching it;
 * - a scan of a table (a find, a count: its rows cannot be named beforehand) may be shared by
 *   members while no other member writes any row of that table;
 * - an opaque statement (one that frees a unique key: a remove, an update of a unique field, with
 *   its savepoint) never goes beside others.
 */
export type TouchOf =
  | { kind: 'read' | 'write'; table: string; key: string }
  | { kind: 'scan'; table: string }
  | { kind: 'opaque' };

interface RowUse {
  writer?: number;
  readers: Set<number>;
}

export class Footprints {
  private readonly rows = new Map<string, RowUse>();
  private readonly scanners = new Map<string, Set<number>>();
  private readonly writers = new Map<string, Set<number>>();

  /** Whether member `i` may issue a statement that touches `t` beside the others; recorded when it may. */
  admit(i: number, t: TouchOf): boolean {
    if (t.kind === 'opaque') return false;
    if (t.kind === 'scan') {
      if (another(this.writers.get(t.table), i)) return false;
      addTo(this.scanners, t.table, i);
      return true;
    }
    let row = this.rows.get(t.key);
    if (row?.writer !== undefined && row.writer !== i) return false;
    if (t.kind === 'read') {
      if (!row) this.rows.set(t.key, (row = { readers: new Set() }));
      row.readers.add(i);
      return true;
    }
    if (another(row?.readers, i) || another(this.scanners.get(t.table), i)) return false;
    if (!row) this.rows.set(t.key, (row = { readers: new Set() }));
    row.writer = i;
    addTo(this.writers, t.table, i);
    return true;
  }
}

/** Whether `members` holds a member other than `i`. */
function another(members: Set<number> | undefined, i: number): boolean {
  if (!members) return false;
  for (const m of members) if (m !== i) return true;
  return false;
}

function addTo(map: Map<string, Set<number>>, key: string, i: number): void {
  const s = map.get(key);
  if (s) s.add(i);
  else map.set(key, new Set([i]));
}
