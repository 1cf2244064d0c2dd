/**
 * Deploys the project's test stablecoin (6 decimals, EIP-3009, EIP-2612) once on a shared dev
 * chain, for several instances to use (docs/deploy.md). The deployer becomes the token's owner,
 * the only account that can mint; the instances relay with keys of their own. Prints the
 * TOKEN_ADDRESS line; with MINT_TO=0xaddr[,0xaddr...] also mints MINT_AMOUNT (default 1000) to each.
 *
 *   CHAIN_RPC_URL=http://127.0.0.1:8545 DEPLOYER_PRIVATE_KEY=0x... npm run chain:deploy
 *
 * A real network already has its stablecoin (USDC): set TOKEN_ADDRESS to it instead.
 */
import { createPublicClient, createWalletClient, defineChain, http, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../src/chain/artifacts/stablecoin.js';
import { deployStablecoin } from '../src/chain/deployment.js';

const rpcUrl = process.env.CHAIN_RPC_URL;
const key = process.env.DEPLOYER_PRIVATE_KEY as Hex | undefined;
if (!rpcUrl || !key) {
  console.error('usage: CHAIN_RPC_URL=http://127.0.0.1:8545 DEPLOYER_PRIVATE_KEY=0x... npm run chain:deploy');
  process.exit(1);
}
const probe = createPublicClient({ transport: http(rpcUrl) });
const id = await probe.getChainId();
const chain = defineChain({ id, name: `Chain ${id}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
const wallet = createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(rpcUrl) });
const d = await deployStablecoin(publicClient, wallet);
for (const to of (process.env.MINT_TO ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
  const hash = await wallet.writeContract({
    address: d.tokenAddress,
    abi: stablecoinAbi,
    functionName: 'mint',
    args: [to as Address, parseUnits(process.env.MINT_AMOUNT ?? '1000', 6)],
  });
  await publicClient.waitForTransactionReceipt({ hash });
  console.error(`minted ${process.env.MINT_AMOUNT ?? '1000'} to ${to}`);
}
console.log(`CHAIN_ID=${id} TOKEN_ADDRESS=${d.tokenAddress}`);
