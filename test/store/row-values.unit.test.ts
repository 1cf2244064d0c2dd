import { describe, expect, it } from 'vitest';
import { LowdbStore, defineTable, type Row } from '../../src/store/index.js';
import { cloneRow, deepFreeze, patchedRow } from '../../src/store/row-values.js';

interface Doc extends Row {
  status: string;
  meta?: Record<string, unknown>;
  tags?: string[];
  txHash?: string;
}
const Docs = defineTable<Doc>({ name: 'docs' });

/** What an update made before: a deep copy of the spread, deep-frozen. */
const spread = (old: Row, patch: object) => deepFreeze(cloneRow({ ...old, ...patch, id: old.id }));

function isDeepFrozen(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  return Object.isFrozen(v) && Object.values(v).every(isDeepFrozen);
}

describe('patchedRow', () => {
  it('is the deep-frozen copy of the spread: same keys in the same order, same values, a "__proto__" key kept as data', () => {
    const proto = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as Record<string, unknown>;
    const olds = [
      { id: 'a', status: 'pending', meta: { k: [1, { d: 'e' }] }, tags: ['x'], n: null },
      { id: 'b', status: 'pending', txHash: undefined, meta: proto },
      { status: 'first', id: 'c', nested: { deep: { deeper: [[1], [2]] } } },
      JSON.parse('{"id": "d", "__proto__": {"y": 2}, "z": 1}') as Row,
    ];
    const patches: object[] = [
      {},
      { status: 'settled' },
      { status: 'settled', txHash: '0xab', meta: { fresh: { v: 1 } } },
      { id: 'other', extra: [1, 2, { three: 3 }], status: undefined },
      { meta: proto, newKey: 'n' },
      JSON.parse('{"__proto__": {"p": 1}, "status": "x"}') as object,
    ];
    for (const o of olds) {
      const old = deepFreeze(cloneRow(o));
      for (const patch of patches) {
        const ours = patchedRow(old, patch);
        const theirs = spread(old, patch);
        expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
        expect(Object.keys(ours)).toEqual(Object.keys(theirs));
        expect(ours).toStrictEqual(theirs);
        expect(Object.getPrototypeOf(ours)).toBe(Object.prototype);
        expect(isDeepFrozen(ours)).toBe(true);
      }
    }
  });

  it('the patch is copied (a caller changing it afterwards changes nothing stored)', () => {
    const old: Row & { meta?: { v: number[] } } = deepFreeze(cloneRow({ id: 'a' }));
    const patch = { meta: { v: [1] } };
    const next = patchedRow(old, patch);
    patch.meta.v.push(2);
    expect(next.meta).toEqual({ v: [1] });
  });
});

describe('an update in the embedded store', () => {
  it('keeps the nested values it did not change (shared, frozen), and copies what it changed', async () => {
    const store = LowdbStore.inMemory();
    const meta = { order: 'A-1', lines: [{ sku: 'x', qty: 2 }] };
    const before = await store.write(Docs, (t) => t.insert({ id: 'd1', status: 'pending', meta, tags: ['a'] }));
    const after = await store.write(Docs, (t) => t.update('d1', { status: 'settled', tags: ['a', 'b'] }));
    expect(after).toMatchObject({ id: 'd1', status: 'settled', meta, tags: ['a', 'b'] });
    // The untouched nested object is the stored one itself, not a copy per update.
    expect(after!.meta).toBe(before.meta);
    expect(Object.isFrozen(after!.meta!.lines)).toBe(true);
    expect(await store.table(Docs).get('d1')).toBe(after);
  });
});
