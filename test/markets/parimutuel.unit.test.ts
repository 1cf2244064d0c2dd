import { describe, expect, it } from 'vitest';
import { parimutuelPayouts, refundAll, type StakeShare } from '../../src/markets/parimutuel.js';

const sum = (xs: { amount: bigint }[]) => xs.reduce((s, x) => s + x.amount, 0n);

describe('parimutuel split', () => {
  it('pays winners stake * pool / winning pool', () => {
    const stakes: StakeShare[] = [
      { id: 'a', outcome: 0, amount: 10_000_000n },
      { id: 'b', outcome: 1, amount: 30_000_000n },
      { id: 'c', outcome: 0, amount: 30_000_000n },
    ];
    const p = parimutuelPayouts(stakes, 0);
    // pool 70, winning pool 40: a gets 10*70/40 = 17.5, c gets 30*70/40 = 52.5
    expect(p).toEqual([
      { id: 'a', amount: 17_500_000n, kind: 'win' },
      { id: 'b', amount: 0n, kind: 'loss' },
      { id: 'c', amount: 52_500_000n, kind: 'win' },
    ]);
    expect(sum(p)).toBe(70_000_000n);
  });

  it('hands the dust to the largest remainders so the escrow ends empty', () => {
    // pool 10 base units, three equal winners of 1 each plus a loser of 7: 10/3 each = 3.33
    const stakes: StakeShare[] = [
      { id: 'w1', outcome: 1, amount: 1n },
      { id: 'w2', outcome: 1, amount: 1n },
      { id: 'w3', outcome: 1, amount: 1n },
      { id: 'l', outcome: 0, amount: 7n },
    ];
    const p = parimutuelPayouts(stakes, 1);
    // floors 3,3,3 = 9; one unit of dust goes to the earliest of the equal remainders.
    expect(p.map((x) => x.amount)).toEqual([4n, 3n, 3n, 0n]);
    expect(sum(p)).toBe(10n);
  });

  it('largest remainder beats order', () => {
    // pool 100, winners 3 and 4 (winning pool 7): 300/7 = 42.857 (rem 6/7), 400/7 = 57.142 (rem 1/7)
    const stakes: StakeShare[] = [
      { id: 'small', outcome: 0, amount: 4n },
      { id: 'big', outcome: 0, amount: 3n },
      { id: 'loser', outcome: 1, amount: 93n },
    ];
    const p = parimutuelPayouts(stakes, 0);
    expect(p.find((x) => x.id === 'small')!.amount).toBe(57n);
    expect(p.find((x) => x.id === 'big')!.amount).toBe(43n);
    expect(sum(p)).toBe(100n);
  });

  it('always sums to the pool and never pays a winner less than its floor share', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const stakes: StakeShare[] = Array.from({ length: 1 + rand(12) }, (_, i) => ({
        id: `s${i}`,
        outcome: rand(3),
        amount: BigInt(1 + rand(5_000_000)),
      }));
      const winner = rand(3);
      const p = parimutuelPayouts(stakes, winner);
      const total = sum(stakes);
      expect(sum(p)).toBe(total);
      const winPool = sum(stakes.filter((s) => s.outcome === winner));
      if (winPool === 0n) {
        expect(p.every((x) => x.kind === 'refund')).toBe(true);
        continue;
      }
      for (const s of stakes) {
        const got = p.find((x) => x.id === s.id)!.amount;
        if (s.outcome !== winner) expect(got).toBe(0n);
        else {
          const floor = (s.amount * total) / winPool;
          expect(got === floor || got === floor + 1n).toBe(true);
        }
      }
    }
  });

  it('refunds everyone when nobody backed the winner', () => {
    const stakes: StakeShare[] = [
      { id: 'a', outcome: 0, amount: 5n },
      { id: 'b', outcome: 0, amount: 7n },
    ];
    expect(parimutuelPayouts(stakes, 1)).toEqual([
      { id: 'a', amount: 5n, kind: 'refund' },
      { id: 'b', amount: 7n, kind: 'refund' },
    ]);
    expect(refundAll(stakes)).toEqual(parimutuelPayouts(stakes, 1));
    expect(parimutuelPayouts([], 0)).toEqual([]);
  });
});
