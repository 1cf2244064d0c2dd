import type * as Viem from 'viem';

/**
 * viem as a test's `vi.mock('viem', …)` factory returns it, with every local signature recovery
 * (`recoverTypedDataAddress`) counted into `counter` and then done as viem does.
 */
export function viemCountingRecoveries(viem: typeof Viem, counter: { count: number }): typeof Viem {
  return {
    ...viem,
    recoverTypedDataAddress: ((...args: Parameters<typeof viem.recoverTypedDataAddress>) => {
      counter.count++;
      return viem.recoverTypedDataAddress(...args);
    }) as typeof viem.recoverTypedDataAddress,
  };
}
