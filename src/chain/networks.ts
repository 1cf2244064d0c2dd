/**
 * What payers and merchants see about the network: its name and where to look a transaction
 * up. Known chains get their public explorer by default; CHAIN_NAME and CHAIN_EXPLORER_URL
 * override (docs/checkout.md). The embedded anvil has no explorer.
 */
const KNOWN: Record<number, { name: string; explorer?: string }> = {
  1: { name: 'Ethereum', explorer: 'https://etherscan.io' },
  10: { name: 'OP Mainnet', explorer: 'https://optimistic.etherscan.io' },
  137: { name: 'Polygon', explorer: 'https://polygonscan.com' },
  8453: { name: 'Base', explorer: 'https://basescan.org' },
  42161: { name: 'Arbitrum One', explorer: 'https://arbiscan.io' },
  43114: { name: 'Avalanche C-Chain', explorer: 'https://snowtrace.io' },
  11155111: { name: 'Sepolia testnet', explorer: 'https://sepolia.etherscan.io' },
  84532: { name: 'Base Sepolia testnet', explorer: 'https://sepolia.basescan.org' },
  421614: { name: 'Arbitrum Sepolia testnet', explorer: 'https://sepolia.arbiscan.io' },
  11155420: { name: 'OP Sepolia testnet', explorer: 'https://sepolia-optimism.etherscan.io' },
  80002: { name: 'Polygon Amoy testnet', explorer: 'https://amoy.polygonscan.com' },
  31337: { name: 'Local test network' },
};

export interface NetworkInfo {
  chainId: number;
  name: string;
  /** Base URL without a trailing slash, or undefined when there is none. */
  explorerUrl?: string;
}

export function networkInfo(chainId: number, o: { name?: string; explorerUrl?: string; embedded?: boolean } = {}): NetworkInfo {
  const known = KNOWN[chainId];
  const name = o.name ?? (o.embedded ? 'Local test network' : known?.name) ?? `Chain ${chainId}`;
  const explorer = o.explorerUrl ?? (o.embedded ? undefined : known?.explorer);
  return explorer ? { chainId, name, explorerUrl: explorer.replace(/\/+$/, '') } : { chainId, name };
}

/** The explorer page of a transaction, when an explorer is known and the hash is well formed. */
export function txUrl(network: NetworkInfo, txHash: string | undefined | null): string | undefined {
  if (!network.explorerUrl || !txHash || !/^0x[0-9a-fA-F]{64}$/.test(txHash)) return undefined;
  return `${network.explorerUrl}/tx/${txHash}`;
}

/** The explorer page of an address. */
export function addressUrl(network: NetworkInfo, address: string | undefined | null): string | undefined {
  if (!network.explorerUrl || !address || !/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined;
  return `${network.explorerUrl}/address/${address}`;
}
