import type { Logger } from 'pino';

/**
 * Start-up timeline: one debug line per phase with its duration, and the total at info, so a
 * slower start shows which phase grew (docs/performance.md, "Cold start").
 */
export function startupTimeline(logger: Logger) {
  const started = performance.now();
  let last = started;
  return {
    phase(name: string): void {
      const now = performance.now();
      logger.debug({ phase: name, ms: Math.round(now - last) }, `start-up: ${name}`);
      last = now;
    },
    totalMs(): number {
      return Math.round(performance.now() - started);
    },
  };
}
