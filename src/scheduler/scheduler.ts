/**
 * The one place background work runs from (docs/architecture.md): the expiry sweep, the
 * settlement, refund and money-module reconcilers, the webhook rescan and the interrupted-action
 * recovery. Each job runs every `everyMs`; before each pass the instance takes or renews the
 * job's named store lease, so with several instances on one database each pass is done by one
 * instance at a time. The holder keeps renewing the lease at every tick (even while a long pass
 * is still running); a killed holder's lease lapses after `leaseMs` (two intervals by default)
 * and the next instance to tick takes the job over. `stop()` releases the leases at once.
 *
 * Below the doors: no HTTP here, only a store's lease calls and a logger.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';
import { noMetrics, type Metrics } from '../metrics/metrics-port.js';

export interface Job {
  /** The lease name, unique per job (e.g. `sweep:expiry`); also how the logs name the job. */
  name: string;
  everyMs: number;
  /** One pass. A rejection is logged; the job keeps its schedule. */
  run: () => Promise<unknown>;
  /** Also run a pass as soon as the scheduler starts (a reconciler catching up after a restart). */
  atStart?: boolean;
  /** How long a pass's lease lasts without renewal (default: two intervals). */
  leaseMs?: number;
}

interface JobState extends Required<Omit<Job, 'atStart'>> {
  atStart: boolean;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  held: boolean;
}

export interface SchedulerOptions {
  store: Pick<Store, 'lease' | 'releaseLease'>;
  /** This instance's id among those sharing the store (InstanceLease.id). */
  owner: string;
  logger: Pick<Logger, 'error'>;
  /** Passes run and leases held, for operators (docs/metrics.md). */
  metrics?: Pick<Metrics, 'schedulerPass' | 'leaseHeld'>;
}

export class Scheduler {
  private readonly jobs = new Map<string, JobState>();
  private started = false;
  private stopped = false;
  private readonly metrics: Pick<Metrics, 'schedulerPass' | 'leaseHeld'>;

  constructor(private readonly opts: SchedulerOptions) {
    this.metrics = opts.metrics ?? noMetrics;
  }

  /** Adds a job; jobs added after `start()` start at once. */
  add(job: Job): this {
    if (this.jobs.has(job.name)) throw new Error(`scheduler: a job named ${job.name} exists already`);
    if (!(job.everyMs > 0)) throw new Error(`scheduler: ${job.name} needs a positive interval`);
    const state: JobState = { ...job, atStart: job.atStart ?? false, leaseMs: job.leaseMs ?? 2 * job.everyMs, held: false };
    this.jobs.set(job.name, state);
    if (this.started && !this.stopped) this.schedule(state);
    return this;
  }

  /** The names of the jobs, in the order they were added. */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs.values()) this.schedule(job);
  }

  /**
   * One pass of `name` now, if this instance holds (or can take) its lease and no pass of it is
   * running here; resolves once the pass is over with whether this instance ran it.
   */
  async runNow(name: string): Promise<boolean> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`scheduler: no job named ${name}`);
    return this.tick(job);
  }

  /** Stops every timer, waits for passes in flight and gives the leases up. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs.values()) clearInterval(job.timer);
    await Promise.allSettled([...this.jobs.values()].map((j) => j.running));
    for (const job of this.jobs.values()) {
      if (!job.held) continue;
      job.held = false;
      await this.opts.store.releaseLease(job.name, this.opts.owner).catch(() => undefined);
      this.metrics.leaseHeld(job.name, false);
    }
  }

  private schedule(job: JobState): void {
    job.timer = setInterval(() => void this.tick(job), job.everyMs);
    job.timer.unref();
    if (job.atStart) void this.tick(job);
  }

  private async tick(job: JobState): Promise<boolean> {
    if (this.stopped) return false;
    let mine: boolean;
    try {
      mine = await this.opts.store.lease(job.name, this.opts.owner, job.leaseMs);
    } catch (err) {
      this.opts.logger.error({ err, job: job.name }, 'background job could not take its lease');
      return false;
    }
    if (mine && this.stopped) {
      // Taken while stopping: give it straight back so another instance need not wait it out.
      await this.opts.store.releaseLease(job.name, this.opts.owner).catch(() => undefined);
      return false;
    }
    job.held = mine;
    this.metrics.leaseHeld(job.name, mine);
    // Held but still running the previous pass: the renewal above keeps it ours, no second pass.
    if (!mine || job.running) return false;
    job.running = (async () => {
      const started = performance.now();
      try {
        await job.run();
        this.metrics.schedulerPass(job.name, 'ok', (performance.now() - started) / 1000);
      } catch (err) {
        this.metrics.schedulerPass(job.name, 'failed', (performance.now() - started) / 1000);
        this.opts.logger.error({ err, job: job.name }, 'background job failed');
      }
    })();
    await job.running;
    job.running = undefined;
    return true;
  }
}
