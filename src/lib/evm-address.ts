import { checksumAddress, type Address } from 'viem';

/**
 * How a typed 0x address reads. All lower case or all upper case carries no checksum and is taken
 * as written (many tools send lower case); mixed case is an EIP-55 checksum, and one that does not
 * match is a mistyped address (h17tour: it was accepted, so a typo'd character sent money to an
 * address nobody holds), as ethers' `getAddress` and wallets refuse it.
 */
export type AddressReading = 'ok' | 'malformed' | 'bad_checksum';

export function readEvmAddress(text: string): AddressReading {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) return 'malformed';
  const hex = text.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return 'ok';
  return checksumAddress(text as Address) === text ? 'ok' : 'bad_checksum';
}
