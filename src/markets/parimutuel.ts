/**
 * Parimutuel split in bigint base units.
 *
 * Each winning stake gets floor(stake * totalPool / winningPool). The floors leave a
 * remainder ("dust") smaller than the number of winning stakes; it is handed out one base
 * unit at a time to the winning stakes with the largest discarded fractions (largest
 * remainder method), ties going to the earlier stake. So the payouts always add up to the
 * whole pool exactly and the escrow ends empty. If nobody backed the winning outcome,
 * every stake is refunded in full.
 */
export interface StakeShare {
  id: string;
  outcome: number;
  amount: bigint;
}

export interface Payout {
  id: string;
  amount: bigint;
  kind: 'win' | 'refund' | 'loss';
}

export function parimutuelPayouts(stakes: readonly StakeShare[], winningOutcome: number): Payout[] {
  const total = stakes.reduce((s, x) => s + x.amount, 0n);
  const winningPool = stakes.filter((s) => s.outcome === winningOutcome).reduce((s, x) => s + x.amount, 0n);
  if (winningPool === 0n) return refundAll(stakes);

  const shares = stakes.map((s, order) => {
    if (s.outcome !== winningOutcome) return { id: s.id, order, amount: 0n, rem: -1n, win: false };
    const num = s.amount * total;
    return { id: s.id, order, amount: num / winningPool, rem: num % winningPool, win: true };
  });
  let dust = total - shares.reduce((s, x) => s + x.amount, 0n);
  const byRemainder = shares
    .filter((s) => s.win)
    .sort((a, b) => (a.rem === b.rem ? a.order - b.order : a.rem > b.rem ? -1 : 1));
  for (const s of byRemainder) {
    if (dust === 0n) break;
    s.amount += 1n;
    dust -= 1n;
  }
  return shares.map((s) => ({ id: s.id, amount: s.amount, kind: s.win ? 'win' : 'loss' }));
}

/** Cancellation, or a winner nobody backed: every stake back in full. */
export function refundAll(stakes: readonly StakeShare[]): Payout[] {
  return stakes.map((s) => ({ id: s.id, amount: s.amount, kind: 'refund' }));
}
