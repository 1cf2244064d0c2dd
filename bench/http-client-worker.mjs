// The agent bench's HTTP client on a thread of its own (bench/http-client.ts): the turns and
// pings are sent from here, so the service's event loop carries only the service, as it does
// for a client on another machine. Plain JS so the worker needs no TypeScript loader.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

/** CPU time of this thread in ns (/proc/thread-self/schedstat, ns resolution; NaN elsewhere). */
function threadCpuNs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

parentPort.on('message', async ({ id, requests, concurrency, keepBodies }) => {
  const n = requests.length;
  const lat = new Array(n);
  const status = new Array(n);
  const body = keepBodies ? new Array(n) : undefined;
  const cpu0 = threadCpuNs();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        const r = requests[i];
        const s = performance.now();
        try {
          const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
          const text = await res.text();
          status[i] = res.status;
          if (body) body[i] = text;
        } catch (err) {
          status[i] = 0;
          if (body) body[i] = String(err);
        }
        lat[i] = performance.now() - s;
      }
    }),
  );
  parentPort.postMessage({ id, lat, status, body, cpuMs: (threadCpuNs() - cpu0) / 1e6 });
});
