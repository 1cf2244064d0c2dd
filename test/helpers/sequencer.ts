import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the files known to be slow first (docs/testing.md). Vitest orders files by the
 * durations it cached on the last run, else by size, largest first; CI starts from a fresh
 * checkout with no cache, and the slowest files are small ones that wait on processes (the
 * agent evaluation is 40 lines and takes minutes), so they started last and ran alone while
 * the other worker sat idle. Slow-first lets the short files fill in around them.
 */
const SLOW: RegExp[] = [
  // Several service processes (src/main.ts) killed and restarted, one or two minutes each.
  /\.(crash|instances|processes)(\.pg)?\.test\.ts$/,
  // The agent evaluation: hundreds of messages through the real service and chain.
  /test\/agent\/eval(\.test\.ts|\/oracle\.test\.ts)$/,
  // Whole journeys and the reconcilers, each waits on the chain and the service's timers.
  /\.e2e\.test\.ts$/,
  /test\/settlement\/reconcile\.test\.ts$/,
];

const rank = (file: string) => {
  const i = SLOW.findIndex((re) => re.test(file.replaceAll('\\', '/')));
  return i < 0 ? SLOW.length : i;
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // A stable sort: within a rank, vitest's own order (cached durations, then size).
    return sorted.map((f, i) => ({ f, i, r: rank(f.moduleId) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
  }
}
