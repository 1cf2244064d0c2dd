import { describe, expect, it } from 'vitest';
import { Footprints, type TouchOf } from '../../src/store/pg/member-footprints.js';

/** The rules by which a commit group's members stay side by side (src/store/pg/member-footprints.ts). */
const read = (key: string, table = key.split('#')[0]!): TouchOf => ({ kind: 'read', table, key });
const write = (key: string, table = key.split('#')[0]!): TouchOf => ({ kind: 'write', table, key });
const scan = (table: string): TouchOf => ({ kind: 'scan', table });

describe('commit group footprints', () => {
  it('many members may read one row, and scan a table none of them writes', () => {
    const f = new Footprints();
    expect(f.admit(0, read('webhook_endpoints#acct'))).toBe(true);
    expect(f.admit(1, read('webhook_endpoints#acct'))).toBe(true);
    expect(f.admit(2, scan('webhook_endpoints'))).toBe(true);
    expect(f.admit(0, scan('webhook_endpoints'))).toBe(true);
    // Each writes rows of its own, in another table.
    expect(f.admit(0, write('payments#p0'))).toBe(true);
    expect(f.admit(1, write('payments#p1'))).toBe(true);
    expect(f.admit(1, read('payments#p1'))).toBe(true);
  });

  it('a row another member wrote may not be read or written; a row another member read may not be written', () => {
    const f = new Footprints();
    expect(f.admit(0, write('payments#p0'))).toBe(true);
    expect(f.admit(1, read('payments#p0'))).toBe(false);
    const g = new Footprints();
    expect(g.admit(0, read('payments#p0'))).toBe(true);
    expect(g.admit(1, write('payments#p0'))).toBe(false);
    // Its own reads and writes, in any order, are its own.
    expect(g.admit(0, write('payments#p0'))).toBe(true);
    expect(g.admit(0, read('payments#p0'))).toBe(true);
  });

  it('a unique key is one row: two inserts claiming it may not go side by side', () => {
    const f = new Footprints();
    expect(f.admit(0, write('payments!reference=["r1"]', 'payments'))).toBe(true);
    expect(f.admit(1, write('payments!reference=["r1"]', 'payments'))).toBe(false);
  });

  it('a scan and another member\'s write of the same table may not go side by side, in either order', () => {
    const f = new Footprints();
    expect(f.admit(0, scan('payments'))).toBe(true);
    expect(f.admit(1, write('payments#p1'))).toBe(false);
    const g = new Footprints();
    expect(g.admit(1, write('payments#p1'))).toBe(true);
    expect(g.admit(0, scan('payments'))).toBe(false);
    // A member may scan a table it writes itself.
    expect(g.admit(1, scan('payments'))).toBe(true);
  });

  it('an opaque statement (one that frees a unique key) never goes beside others', () => {
    expect(new Footprints().admit(0, { kind: 'opaque' })).toBe(false);
  });
});
