/**
 * The chain port: the one interface the domain (settlement, x402's exact scheme, transfers,
 * bills, markets, refunds, the deposit watcher, the custodial mover) sees of the chain.
 * `ChainService` (chain.ts) extends it with what only the composition root and the doors use
 * (the node client, faucet, readiness, shutdown); `ChainServiceImpl` is its one implementation.
 * Unit tests implement it in memory (test/helpers/fake-chain.ts); a helper that needs a few
 * members takes a `Pick<ChainPort, ...>`.
 *
 * Every token movement goes out through `submitTransfers`, and the domain calls that only via
 * `relayOnce` (relay.ts): one relay path, one outcome.
 */
import type { Address, Hex } from 'viem';
import type { Fail, Ok, Result } from '../lib/results.js';
import type { Eip712Domain, TransferAuthorization, TransferTypedData, TransferTypedDataJson } from './authorization.js';
import type { TokenTransfer } from './deposit-addresses.js';
import type { CustodialTransferParams, FindAuthorizationOptions, ReceiptOutcome, SubmitOptions, SubmitResult, VerifyReason } from './chain-results.js';

/** One EIP-3009 authorization with its signature, as relayed. */
export interface SignedAuthorization {
  auth: TransferAuthorization;
  signature: Hex;
}

type Signed = Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>;

export interface ChainPort {
  readonly chainId: number;
  readonly tokenAddress: Address;
  /** Read from the token contract (6 for USDC). */
  readonly decimals: number;
  /** The token's EIP-712 domain, read from the contract (name, version) and the chain. */
  readonly eip712Domain: Eip712Domain;
  /** Pays the gas of every transaction this service sends. */
  readonly relayerAddress: Address;
  /** True when running the embedded anvil (faucet available, state under DATA_DIR/chain). */
  readonly embedded: boolean;
  /**
   * True when the token executes several authorizations in one transaction
   * (`transferWithAuthorizations`, contracts/Stablecoin.sol): read once at start-up. USDC and a
   * stablecoin deployed before the function existed do not.
   */
  readonly batchTransfers: boolean;

  // ---------------------------------------------------------------- reads
  balanceOf(address: Address): Promise<bigint>;
  nativeBalance(address: Address): Promise<bigint>;
  /** EIP-3009: true once the (authorizer, nonce) pair was used or canceled. */
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;
  /** Never throws; default timeout `confirmTimeoutMs`. */
  waitForReceipt(txHash: Hex, timeoutMs?: number): Promise<ReceiptOutcome>;
  /** True when the node knows the transaction (in its pool or mined). Throws when the node cannot say. */
  transactionKnown(txHash: Hex): Promise<boolean>;
  /** Chain time in seconds: the latest block's timestamp, never behind the wall clock. */
  chainTime(): Promise<bigint>;
  /**
   * The tx that used (authorizer, nonce), from the AuthorizationUsed log; for reconciliation
   * after a crash or an ambiguous `submit_failed`. Checks `txHash` first when given, then scans
   * backwards from the latest block in windows, down to `fromBlock`, else the highest of the
   * deploy block, the block at `since` and the max lookback. A bigint argument is `fromBlock`.
   * Throws if the RPC fails.
   */
  findAuthorizationTx(authorizer: Address, nonce: Hex, opts?: bigint | FindAuthorizationOptions): Promise<Hex | undefined>;
  /** Gas used and its cost in wei (gasUsed × effectiveGasPrice) of a mined transaction (x402 gas accounting). */
  gasCost(txHash: Hex): Promise<{ gasUsed: bigint; costWei: bigint } | undefined>;
  /** The latest block number. Throws when the node cannot be reached. */
  latestBlockNumber(): Promise<bigint>;
  /** Token Transfer logs to any of `to` in [fromBlock, toBlock], oldest first (deposit-addresses.ts). Throws if the RPC fails. */
  findTransfersTo(to: readonly Address[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]>;

  // ---------------------------------------------------------------- authorizations
  /** What a wallet signs: `typedData` for viem, `json` for eth_signTypedData_v4. */
  transferWithAuthorizationTypedData(auth: TransferAuthorization): { typedData: TransferTypedData; json: TransferTypedDataJson };
  verifyTransferAuthorization(auth: TransferAuthorization, signature: Hex): Promise<Result<{ signer: Address }, VerifyReason>>;
  /** Deterministic bytes32 EIP-3009 nonce for a business object (see authorization.ts). */
  nonceFor(kind: string, id: string): Hex;
  /** Address of the custodial wallet at BIP-44 index `index` (cached: callers need no cache of their own). */
  custodialAddress(index: number): Address;
  /**
   * A custodial authorization (valid from the latest block - 60 s for 1 h) signed with the
   * custodial key, for `relayOnce`. Fails only when the chain cannot be reached.
   */
  signCustodialAuthorization(params: CustodialTransferParams): Promise<Signed>;
  /** Address of the checkout deposit address at `index` (its own BIP-44 branch, DEPOSIT_PATH; cached). */
  depositAddress(index: number): Address;
  /** Like signCustodialAuthorization, signed by the deposit key at `params.fromIndex`. */
  signDepositAuthorization(params: CustodialTransferParams): Promise<Signed>;

  // ---------------------------------------------------------------- the one send
  /**
   * Sends `items` from the relayer in one transaction: one authorization as
   * `transferWithAuthorization` (verified in full first unless `opts.verified`; the gas
   * estimate is the one simulation), several as `transferWithAuthorizations`, all or none (only
   * with `batchTransfers`). Resubmitting the same items while pending or mined returns the same
   * txHash. The domain calls it only through `relayOnce` (relay.ts).
   */
  submitTransfers(items: readonly SignedAuthorization[], opts?: SubmitOptions): Promise<SubmitResult>;
  /**
   * Simulates the all-or-none call of several `items` now, sending nothing, for a caller that
   * submits the very same items shortly, after its own bookkeeping: that submit sends on this
   * simulation if it passed at most a verification's freshness ago (2 s), else simulates again
   * (submit.ts `simulateEarly`). Optional (fakes need not have it).
   */
  simulateTransfers?(items: readonly SignedAuthorization[]): void;
}
