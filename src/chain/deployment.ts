/**
 * The embedded chain's stablecoin deployment, recorded in DATA_DIR/chain/deployment.json so
 * later starts reuse the same token address (and redeploy only when the chain was reset).
 */
import { readFile } from 'node:fs/promises';
import { getAddress, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { z } from 'zod';
import { stablecoinAbi, stablecoinBytecode } from './artifacts/stablecoin.js';
import { EvmAddress } from './authorization.js';
import { writeFileDurably } from '../lib/durable-file.js';

export const Deployment = z.object({
  chainId: z.number().int().positive(),
  tokenAddress: EvmAddress,
  /** Block of the deploy transaction, as a decimal string (log scans start here). */
  deployBlock: z.string().regex(/^\d+$/),
  deployTxHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  deployedAt: z.string(),
});
export type Deployment = z.infer<typeof Deployment>;

export async function readDeployment(file: string): Promise<Deployment | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const parsed = Deployment.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

export async function writeDeployment(file: string, d: Deployment): Promise<void> {
  await writeFileDurably(file, `${JSON.stringify(d, null, 2)}\n`);
}

/** Deploys the stablecoin from `wallet`'s account (which becomes its owner and minter). */
export async function deployStablecoin(
  publicClient: PublicClient<Transport, Chain>,
  wallet: WalletClient<Transport, Chain, Account>,
): Promise<Deployment> {
  const hash: Hex = await wallet.deployContract({ abi: stablecoinAbi, bytecode: stablecoinBytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`stablecoin deployment ${hash} failed (${receipt.status})`);
  }
  return {
    chainId: publicClient.chain.id,
    tokenAddress: getAddress(receipt.contractAddress) as Address,
    deployBlock: receipt.blockNumber.toString(),
    deployTxHash: hash,
    deployedAt: new Date().toISOString(),
  };
}
