/** Shared fixtures for chain tests: a raw anvil with the stablecoin deployed, temp dirs. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseEther,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { stablecoinAbi, stablecoinBytecode } from '../../src/chain/artifacts/stablecoin.js';
import type { Eip712Domain, TransferAuthorization } from '../../src/chain/authorization.js';
import type { ChainService } from '../../src/chain/chain.js';
import { relayAttemptId, type OwnedRelayRequest } from '../../src/chain/owned-relay.js';

export async function tempDir(prefix = 'chain-test-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function startTokenChain(opts: { chainId?: number } = {}) {
  const anvil: AnvilHandle = await startAnvil(opts.chainId ? { chainId: opts.chainId } : {});
  const chain = defineChain({
    id: anvil.chainId,
    name: 'test anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  // Generous: mining thousands of blocks in one call takes seconds on a loaded 2-core machine.
  const transport = http(anvil.rpcUrl, { timeout: 60_000 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });

  async function fundedKey(): Promise<Hex> {
    const key = generatePrivateKey();
    await testClient.setBalance({ address: privateKeyToAccount(key).address, value: parseEther('100') });
    return key;
  }
  async function fundedAccount(): Promise<PrivateKeyAccount> {
    return privateKeyToAccount(await fundedKey());
  }
  const walletFor = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport });

  const deployer = await fundedAccount();
  const hash = await walletFor(deployer).deployContract({ abi: stablecoinAbi, bytecode: stablecoinBytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  const token = getAddress(receipt.contractAddress!) as Address;
  const domain: Eip712Domain = { name: 'Test USD Coin', version: '2', chainId: anvil.chainId, verifyingContract: token };

  async function mint(to: Address, amount: bigint): Promise<void> {
    const h = await walletFor(deployer).writeContract({ address: token, abi: stablecoinAbi, functionName: 'mint', args: [to, amount] });
    await publicClient.waitForTransactionReceipt({ hash: h });
  }
  const balanceOf = (a: Address) => publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'balanceOf', args: [a] });
  const latestTimestamp = async () => (await publicClient.getBlock()).timestamp;

  return { anvil, chain, publicClient, testClient, deployer, token, domain, fundedKey, fundedAccount, walletFor, mint, balanceOf, latestTimestamp };
}

export function randomNonce(): Hex {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

/**
 * A fresh payer funded with 5 tokens and its signed authorization of a 1-token transfer, as an
 * owned relay request (`subject`, giving up after `timeoutMs`) and its attempt's id: the fence
 * tests' move (owned-relay.fence.pg, journal-replay.fence.pg).
 */
export async function signedOwnedMove(a: ChainService, subject: string, timeoutMs: number) {
  const payer = privateKeyToAccount(generatePrivateKey());
  const funded = await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n });
  if (!funded.ok) throw new Error(`faucet: ${funded.message}`);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth: TransferAuthorization = {
    from: payer.address,
    to: privateKeyToAccount(generatePrivateKey()).address as Address,
    value: 1_000_000n,
    validAfter: now - 600n,
    validBefore: now + 3_600n,
    nonce: randomNonce(),
  };
  const signature = await payer.signTypedData(a.transferWithAuthorizationTypedData(auth).typedData);
  const req: OwnedRelayRequest = { kind: 'transfer', subject, from: auth.from, nonce: auth.nonce, sign: async () => ({ ok: true, auth, signature }), timeoutMs };
  return { auth, req, id: relayAttemptId('transfer', auth.from, auth.nonce) };
}
