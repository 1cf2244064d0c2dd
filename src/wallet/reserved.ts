import { createHash } from 'node:crypto';

/**
 * Reserved BIP-44 index ranges of the custodial mnemonic (m/44'/60'/0'/0/<index>).
 * Every wallet the service controls derives from the one mnemonic; the ranges keep user
 * wallets, the fee wallet, biller collection wallets and market escrows from ever sharing
 * a key. Indexes must stay below 2^31 (non-hardened derivation).
 *
 *   1 .. 999,999,999                 user accounts (AccountsService assigns count + 1)
 *   1,000,000,000                    service fee wallet (transfer fees)
 *   1,100,000,000 .. 1,199,999,999   biller collection wallets (hash of the catalogue key)
 *   1,200,000,000 .. 2,147,483,647   market escrow wallets (one per market, by sequence)
 */
export const ACCOUNT_INDEX_MAX = 999_999_999;
export const FEE_WALLET_INDEX = 1_000_000_000;
export const BILLER_COLLECTION_BASE = 1_100_000_000;
export const BILLER_COLLECTION_SLOTS = 100_000_000;
export const MARKET_ESCROW_BASE = 1_200_000_000;
export const MARKET_ESCROW_MAX = 1_999_999_999;
/** Claim escrow wallets (src/claims): one per claim link, `CLAIM_ESCROW_BASE + claim sequence`. */
export const CLAIM_ESCROW_BASE = 2_000_000_000;
export const CLAIM_ESCROW_MAX = 2 ** 31 - 1;

/**
 * Collection wallet index for a biller's catalogue key ("billers/ng-ikedc-prepaid"). A hash
 * rather than the catalogue position, so reordering or adding billers never moves a wallet.
 */
export function billerCollectionIndex(collectionKey: string): number {
  const h = createHash('sha256').update(`stablepay.biller-collection.v1:${collectionKey}`).digest();
  return BILLER_COLLECTION_BASE + (h.readUInt32BE(0) % BILLER_COLLECTION_SLOTS);
}

/** Escrow wallet index of the market with sequence number `seq` (0-based, in creation order). */
export function marketEscrowIndex(seq: number): number {
  const index = MARKET_ESCROW_BASE + seq;
  if (!Number.isSafeInteger(seq) || seq < 0 || index > MARKET_ESCROW_MAX) {
    throw new RangeError(`market escrow sequence out of range: ${seq}`);
  }
  return index;
}

/** Escrow wallet index of the claim with sequence number `seq` (0-based, in creation order). */
export function claimEscrowIndex(seq: number): number {
  const index = CLAIM_ESCROW_BASE + seq;
  if (!Number.isSafeInteger(seq) || seq < 0 || index > CLAIM_ESCROW_MAX) throw new RangeError(`claim escrow sequence out of range: ${seq}`);
  return index;
}
