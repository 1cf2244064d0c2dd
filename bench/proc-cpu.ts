/**
 * CPU time of another process from /proc (Linux), for benches that run anvil beside the service:
 * how much of a turn is the node's own work (issue 23, eleventh round). Elsewhere: undefined.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** User + system CPU of `pid` in ms, or undefined when /proc cannot tell. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/** The pid of a child of `parent` whose command name is `comm` (e.g. the embedded anvil). */
export function childNamed(comm: string, parent: number): number | undefined {
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const s = readFileSync(`/proc/${d}/stat`, 'utf8');
        if (s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')) === comm && Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === parent) return Number(d);
      } catch {
        // gone
      }
    }
  } catch {
    // no /proc
  }
  return undefined;
}
