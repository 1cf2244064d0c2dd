import { ConfigError, loadConfig } from './config/config.js';

/** Composition root entry: validate config, start, and stop cleanly on signals. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  // The service's module graph is loaded only after the configuration is valid: a bad
  // configuration fails in well under a second, never after importing the whole service.
  const { startService } = await import('./service.js');
  const service = await startService(config);
  // The service's own PUBLIC_URL: with PORT=0 it follows the port actually bound.
  const publicUrl = service.core.config.PUBLIC_URL;
  process.stdout.write(`StablePay is running at ${publicUrl} (API: ${publicUrl}/api, app: ${publicUrl}/app)\n`);
  // The embedded chain: where a real wallet (MetaMask, a script) can be pointed (also on /readyz).
  const rpc = service.core.wallets.devRpcUrl;
  if (rpc) process.stdout.write(`Embedded test chain: JSON-RPC ${rpc} (chain id ${service.core.wallets.chainId})\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait for the drain.
      process.stdout.write(`${signal} received again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`\n${signal} received, shutting down (requests in flight get up to ${config.SHUTDOWN_GRACE} ms)...\n`);
    // Bounded: a pass or a worker stuck past the grace (and a little more) does not keep the process.
    setTimeout(() => {
      process.stderr.write('shutdown took too long; exiting\n');
      process.exit(1);
    }, config.SHUTDOWN_GRACE + 15_000).unref();
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
