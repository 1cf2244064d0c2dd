import { describe, expect, it } from 'vitest';
import { TurnReads, keyModeRead, readOnce, turnReadsFor } from '../../src/lib/turn-reads.js';

describe('TurnReads: one read per key within a turn', () => {
  it('answers a second ask, even a concurrent one, from the first read', async () => {
    const reads = new TurnReads();
    let n = 0;
    const read = async () => ++n;
    expect(await Promise.all([reads.once('k', read), reads.once('k', read)])).toEqual([1, 1]);
    expect(await reads.once('k', read)).toBe(1);
    expect(await reads.once('other', read)).toBe(2);
  });

  it('a new turn reads again; so does `forget` and outside a turn', async () => {
    let n = 0;
    const read = async () => ++n;
    expect(await new TurnReads().once('k', read)).toBe(1);
    expect(await new TurnReads().once('k', read)).toBe(2);
    const reads = new TurnReads();
    await reads.once('k', read);
    reads.forget('k');
    expect(await reads.once('k', read)).toBe(4);
    expect(await readOnce(undefined, 'k', read)).toBe(5);
    expect(await readOnce(undefined, 'k', read)).toBe(6);
  });

  it('a failed read is not kept: the next ask reads again', async () => {
    const reads = new TurnReads();
    let n = 0;
    const read = async () => {
      if (++n === 1) throw new Error('store busy');
      return n;
    };
    await expect(reads.once('k', read)).rejects.toThrow('store busy');
    expect(await reads.once('k', read)).toBe(2);
    expect(await reads.once('k', read)).toBe(2);
  });

  it("a turn through a key starts with the key's mode the door verified; without one it reads it", async () => {
    const never = async (): Promise<boolean> => {
      throw new Error('read');
    };
    expect(await turnReadsFor({ keyId: 'key_1', livemode: false }).once(keyModeRead('key_1'), never)).toBe(false);
    await expect(turnReadsFor({ keyId: 'key_1' }).once(keyModeRead('key_1'), never)).rejects.toThrow('read');
  });
});
