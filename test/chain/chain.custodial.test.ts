import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits, type Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { custodialAccount } from '../../src/chain/wallet-secrets.js';
import { tempDir } from './helpers.js';

const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

describe('ChainService: custodial transfers and the faucet', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const t = await tempDir('chain-custodial-');
    cleanup = t.cleanup;
    // A mnemonic other than anvil's, whose accounts would start with 10,000 ETH.
    chain = await createChain({ dataDir: t.dir });
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  it('mints test stablecoin and sends 0.1 ETH of gas money', async () => {
    const address = '0x00000000000000000000000000000000000f00d5' as Address;
    const res = await chain.faucet(address, parseUnits('25', 6));
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.gasTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(address)).toBe(25_000_000n);
    expect(await chain.nativeBalance(address)).toBe(parseEther('0.1'));
  });

  it('refuses a non-positive amount', async () => {
    expect(await chain.faucet('0x00000000000000000000000000000000000f00d6', 0n)).toMatchObject({ ok: false, reason: 'invalid_amount' });
  });

  it('moves stablecoin from a custodial wallet that holds no ETH: the relayer pays the gas', async () => {
    const from = chain.custodialAddress(7);
    const to = chain.custodialAddress(8);
    expect((await chain.faucet(from, 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const relayerEthBefore = await chain.nativeBalance(chain.relayerAddress);

    const res = await chain.custodialTransferAndWait({ fromIndex: 7, to, value: 4_000_000n, nonce: chain.nonceFor('transfer', 'tr_1') });

    if (!res.ok) throw new Error(`${res.reason}: ${res.message}`);
    expect(res.from).toBe(from);
    expect(res.receipt.status).toBe('success');
    expect(await chain.balanceOf(from)).toBe(6_000_000n);
    expect(await chain.balanceOf(to)).toBe(4_000_000n);
    expect(await chain.nativeBalance(from)).toBe(0n);
    expect(await chain.nativeBalance(chain.relayerAddress)).toBeLessThan(relayerEthBefore);
    const tx = await chain.publicClient.getTransaction({ hash: res.txHash });
    expect(tx.from.toLowerCase()).toBe(chain.relayerAddress.toLowerCase());
  });

  it('moves money once per nonce and refuses an overdraft', async () => {
    const from = chain.custodialAddress(9);
    expect((await chain.faucet(from, 3_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const nonce = chain.nonceFor('transfer', 'tr_once');
    const to = chain.custodialAddress(10);
    const first = await chain.custodialTransferAndWait({ fromIndex: 9, to, value: 1_000_000n, nonce });
    const again = await chain.custodialTransferAndWait({ fromIndex: 9, to, value: 1_000_000n, nonce });
    expect(first.ok && again.ok && again.txHash === first.txHash).toBe(true);
    expect(await chain.balanceOf(to)).toBe(1_000_000n);

    const overdraft = await chain.custodialTransfer({ fromIndex: 9, to, value: 5_000_000n, nonce: chain.nonceFor('transfer', 'tr_big') });
    expect(overdraft).toMatchObject({ ok: false, reason: 'insufficient_balance' });
  });

  it('derives custodial addresses from the configured mnemonic', async () => {
    const t = await tempDir('chain-custodial-mn-');
    const other = await createChain({ dataDir: t.dir, walletMnemonic: TEST_MNEMONIC });
    try {
      expect(other.custodialAddress(3)).toBe(custodialAccount(TEST_MNEMONIC, 3).address);
      expect(chain.custodialAddress(3)).not.toBe(other.custodialAddress(3));
    } finally {
      await other.close();
      await t.cleanup();
    }
  });
});
