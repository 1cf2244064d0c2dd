import type { MiddlewareFn } from 'grammy';
import type { Logger } from 'pino';
import type { BotContext } from './context.js';

/** Update handling in flight, so shutdown can wait for it (a confirm may be moving money). */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  track<T>(task: Promise<T>): Promise<T> {
    this.running.add(task);
    const forget = () => this.running.delete(task);
    task.then(forget, forget);
    return task;
  }

  /** Resolves when everything in flight has finished, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([Promise.allSettled([...this.running]).then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Runs the rest of the middleware tracked by `inflight`. With `background` (webhook mode)
 * it does not wait: the webhook request is answered as soon as the update is recorded,
 * because Telegram redelivers (and holds the chat's later updates) when a reply is slow,
 * and an agent turn or an on-chain confirm can take many seconds.
 */
export function handOff(inflight: InFlight, background: boolean, logger: Logger): MiddlewareFn<BotContext> {
  return async (_ctx, next) => {
    const work = inflight.track(Promise.resolve().then(next));
    if (!background) return work;
    work.catch((err: unknown) => logger.error({ err }, 'Telegram update failed'));
  };
}
