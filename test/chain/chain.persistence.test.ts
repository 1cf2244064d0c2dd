import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { ChainServiceImpl } from '../../src/chain/chain-service.js';
import { storeRelayJournal } from '../../src/chain/relay-journal.js';
import { LowdbStore } from '../../src/store/index.js';
import { tempDir } from './helpers.js';

describe('ChainService: embedded chain persistence', () => {
  const open: ChainService[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await Promise.all(cleanups.map((c) => c()));
  });
  async function start(dataDir: string) {
    const c = await createChain({ dataDir });
    open.push(c);
    return c;
  }

  it('keeps balances, the token and the relayer across close() and a new start on the same DATA_DIR', async () => {
    const { dir, cleanup } = await tempDir('chain-persist-');
    cleanups.push(cleanup);
    const holder = '0x0000000000000000000000000000000000001234' as Address;

    const first = await start(dir);
    expect((await first.faucet(holder, 42_000_000n)).ok).toBe(true);
    const moved = await first.custodialTransferAndWait({ fromIndex: 0, to: holder, value: 0n, nonce: first.nonceFor('t', '1') });
    expect(moved.ok).toBe(true);
    const custodial0 = first.custodialAddress(0);
    const { tokenAddress, relayerAddress } = first;
    await first.close();
    expect(await first.ping()).toBe(false);

    const chainDir = path.join(dir, 'chain');
    expect((await stat(path.join(chainDir, 'anvil-state.json'))).size).toBeGreaterThan(0);
    const deployment = JSON.parse(await readFile(path.join(chainDir, 'deployment.json'), 'utf8'));
    expect(deployment).toMatchObject({ chainId: 31337, tokenAddress });
    const secrets = JSON.parse(await readFile(path.join(dir, 'secrets.json'), 'utf8'));
    expect(Object.keys(secrets).sort()).toEqual(['relayerPrivateKey', 'walletMnemonic']);
    expect((await stat(path.join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);

    const second = await start(dir);
    expect(await second.ping()).toBe(true);
    expect(second.tokenAddress).toBe(tokenAddress);
    expect(second.relayerAddress).toBe(relayerAddress);
    expect(second.custodialAddress(0)).toBe(custodial0);
    expect(await second.balanceOf(holder)).toBe(42_000_000n);
    expect(await second.authorizationState(custodial0, second.nonceFor('t', '1'))).toBe(true);
    expect(JSON.parse(await readFile(path.join(chainDir, 'deployment.json'), 'utf8'))).toEqual(deployment);
    // The relayer's nonce carried over too: new transactions still go through.
    expect((await second.faucet(holder, 1_000_000n)).ok).toBe(true);
    expect(await second.balanceOf(holder)).toBe(43_000_000n);
    await second.close();
  });

  it('recovers from a corrupt state dump with the copy kept at the previous start', async () => {
    const { dir, cleanup } = await tempDir('chain-corrupt-');
    cleanups.push(cleanup);
    const holder = '0x0000000000000000000000000000000000005678' as Address;
    const first = await start(dir);
    expect((await first.faucet(holder, 5_000_000n)).ok).toBe(true);
    await first.close();
    const second = await start(dir); // loads the dump and keeps it as the backup
    await second.close();

    const stateFile = path.join(dir, 'chain', 'anvil-state.json');
    await writeFile(stateFile, '{"block":{"number":"0x'); // a dump cut short by a crash
    const third = await start(dir);
    expect(third.tokenAddress).toBe(first.tokenAddress);
    expect(await third.balanceOf(holder)).toBe(5_000_000n);
    await third.close();
  });

  it('redeploys the token when the chain was reset under an old deployment record', async () => {
    const { dir, cleanup } = await tempDir('chain-reset-');
    cleanups.push(cleanup);
    const holder = '0x0000000000000000000000000000000000009abc' as Address;
    const first = await start(dir);
    expect((await first.faucet(holder, 5_000_000n)).ok).toBe(true);
    await first.close();
    const before = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8'));

    await rm(path.join(dir, 'chain', 'anvil-state.json'));
    await rm(path.join(dir, 'chain', 'anvil-state.json.bak'), { force: true });
    const second = await start(dir);
    const after = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8'));
    // Same relayer and nonce give the same address (and even tx hash); the record is new.
    expect(after.deployedAt).not.toBe(before.deployedAt);
    expect(after.tokenAddress).toBe(second.tokenAddress);
    expect(await second.publicClient.getCode({ address: second.tokenAddress })).toMatch(/^0x[0-9a-f]{10,}/);
    expect(await second.balanceOf(holder)).toBe(0n);
    expect(second.decimals).toBe(6);
    await second.close();
  });

  it('recovers from a torn state dump (accounts hold a block that is missing) and replays the journal', async () => {
    const { dir, cleanup } = await tempDir('chain-torn-');
    cleanups.push(cleanup);
    const store = await LowdbStore.open(dir);
    cleanups.unshift(() => store.close());
    const journal = storeRelayJournal(store);
    const holder = '0x000000000000000000000000000000000000beef' as Address;
    const first = await createChain({ dataDir: dir, journal });
    expect((await first.faucet(holder, 5_000_000n)).ok).toBe(true);
    await first.close();
    // This start keeps the dump of the first run as the backup; its transactions are journaled.
    const second = await createChain({ dataDir: dir, journal });
    expect((await second.faucet(holder, 7_000_000n)).ok).toBe(true);
    const nonce = second.nonceFor('torn', '1');
    const moved = await second.custodialTransferAndWait({ fromIndex: 0, to: holder, value: 0n, nonce });
    expect(moved.ok).toBe(true);
    const lastTx = moved.ok ? moved.txHash : undefined;
    const custodial0 = second.custodialAddress(0);
    await second.close();

    // What a SIGKILL mid-mining leaves: the accounts hold the newest block's effects, the
    // block and its transactions are not in the dump.
    const stateFile = path.join(dir, 'chain', 'anvil-state.json');
    const state = JSON.parse(await readFile(stateFile, 'utf8'));
    const top = Math.max(...state.blocks.map((b: { header: { number: string } }) => Number(b.header.number)));
    state.blocks = state.blocks.filter((b: { header: { number: string } }) => Number(b.header.number) !== top);
    state.transactions = state.transactions.filter((t: { block_number: string | number }) => Number(t.block_number) !== top);
    state.best_block_number = top - 1;
    await writeFile(stateFile, JSON.stringify(state));

    const third = await createChain({ dataDir: dir, journal });
    open.push(third);
    // The journal put the lost block's transaction back: a receipt, and the state agrees.
    expect((await third.waitForReceipt(lastTx!, 5_000)).status).toBe('success');
    expect(await third.authorizationState(custodial0, nonce)).toBe(true);
    expect(await third.balanceOf(holder)).toBe(12_000_000n);
    // And the relayer carries on from there.
    expect((await third.faucet(holder, 1_000_000n)).ok).toBe(true);
    expect(await third.balanceOf(holder)).toBe(13_000_000n);
  });

  // What a power cut in the middle of anvil's periodic dump leaves: a state file cut short.
  const cutShort = (dir: string) => writeFile(path.join(dir, 'chain', 'anvil-state.json'), '{"block":{"number":"0x');

  it('a dump cut short in the very first run: the copy taken at the first start and the journal bring the run back', async () => {
    const { dir, cleanup } = await tempDir('chain-first-cut-');
    cleanups.push(cleanup);
    const store = await LowdbStore.open(dir);
    cleanups.unshift(() => store.close());
    const journal = storeRelayJournal(store);
    const holder = '0x000000000000000000000000000000000000f1f1' as Address;
    const first = await createChain({ dataDir: dir, journal });
    const funded = await first.faucet(holder, 5_000_000n);
    expect(funded.ok).toBe(true);
    await first.close();
    await cutShort(dir);

    // Without a copy from the first start this was a fresh chain, and the journal was emptied.
    const second = await createChain({ dataDir: dir, journal });
    open.push(second);
    expect(second.tokenAddress).toBe(first.tokenAddress);
    expect(await second.balanceOf(holder)).toBe(5_000_000n);
    expect((await second.waitForReceipt(funded.ok ? funded.mintTxHash : '0x', 5_000)).status).toBe('success');
  });

  it('two power cuts close together: before the first run\'s first dump, then right after the next start', async () => {
    const { dir, cleanup } = await tempDir('chain-two-cuts-');
    cleanups.push(cleanup);
    const store = await LowdbStore.open(dir);
    cleanups.unshift(() => store.close());
    const journal = storeRelayJournal(store);
    const holder = '0x000000000000000000000000000000000000f2f2' as Address;
    const stateFile = path.join(dir, 'chain', 'anvil-state.json');
    const first = await createChain({ dataDir: dir, journal });
    expect((await first.faucet(holder, 5_000_000n)).ok).toBe(true);
    await first.close();
    // The first cut came before anvil wrote any state file.
    await rm(stateFile);

    const second = await createChain({ dataDir: dir, journal });
    expect(second.tokenAddress).toBe(first.tokenAddress);
    expect(await second.balanceOf(holder)).toBe(5_000_000n);
    expect((await second.faucet(holder, 7_000_000n)).ok).toBe(true);
    // Its sweep forgets only what the state it loaded holds: not what it replayed.
    await (second as ChainServiceImpl).sweepJournal();
    await second.close();
    // The second cut, a moment later, in the middle of the next dump.
    await cutShort(dir);

    const third = await createChain({ dataDir: dir, journal });
    open.push(third);
    expect(await third.balanceOf(holder)).toBe(12_000_000n);
    expect((await third.faucet(holder, 1_000_000n)).ok).toBe(true);
    expect(await third.balanceOf(holder)).toBe(13_000_000n);
  });
});
