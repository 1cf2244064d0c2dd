/**
 * The on-chain layer: one ChainService per process, over either an embedded anvil (default)
 * or a real network (CHAIN_RPC_URL + TOKEN_ADDRESS + RELAYER_PRIVATE_KEY).
 *
 * Every token movement is an EIP-3009 TransferWithAuthorization signed by the payer (a
 * browser wallet, or a custodial key held here) and submitted by the relayer account, which
 * pays the gas. Verification follows coinbase/x402's facilitator: recover the signer, check
 * the validity window, the authorization state and the balance, then simulate the call.
 */
import { type Address, type Chain, type Hex, type HttpTransport, type PublicClient } from 'viem';
import { type Fail, type Ok, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { nonceFor, type Eip712Domain, type TransferAuthorization, type TransferTypedData, type TransferTypedDataJson } from './authorization.js';
import type { RelayJournal } from './relay-journal.js';
import type { TokenTransfer } from './deposits.js';
import type { FaucetReason, CustodialTransferParams, FindAuthorizationOptions, ReceiptOutcome, SubmitFailure, SubmitOptions, SubmitResult, VerifyReason } from './results.js';

export * from './results.js';
export type { TokenTransfer } from './deposits.js';

// ---------------------------------------------------------------------------- service

export interface ChainService {
  readonly chainId: number;
  readonly tokenAddress: Address;
  /** Read from the token contract (6 for USDC). */
  readonly decimals: number;
  /** The token's EIP-712 domain, read from the contract (name, version) and the chain. */
  readonly eip712Domain: Eip712Domain;
  /** Pays the gas of every transaction this service sends. */
  readonly relayerAddress: Address;
  readonly publicClient: PublicClient<HttpTransport, Chain>;
  /** True when running the embedded anvil (faucet available, state under DATA_DIR/chain). */
  readonly embedded: boolean;
  readonly rpcUrl: string;
  /** Block the token was deployed at, when known (embedded); a lower bound for log scans. */
  readonly deployBlock: bigint | undefined;

  balanceOf(address: Address): Promise<bigint>;
  nativeBalance(address: Address): Promise<bigint>;
  /** EIP-3009: true once the (authorizer, nonce) pair was used or canceled. */
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;

  /** What a wallet signs: `typedData` for viem, `json` for eth_signTypedData_v4. */
  transferWithAuthorizationTypedData(auth: TransferAuthorization): {
    typedData: TransferTypedData;
    json: TransferTypedDataJson;
  };
  verifyTransferAuthorization(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ signer: Address }, VerifyReason>>;
  /**
   * Verifies in full (with `opts.verified`, only the gas estimate runs the call: one
   * simulation), then sends transferWithAuthorization from the relayer. Resubmitting an
   * authorization whose transaction is pending or mined returns the same txHash.
   */
  submitTransferWithAuthorization(auth: TransferAuthorization, signature: Hex, opts?: SubmitOptions): Promise<SubmitResult>;
  /**
   * True when the token executes several authorizations in one transaction
   * (`transferWithAuthorizations`, contracts/Stablecoin.sol): read once at start-up. USDC and a
   * stablecoin deployed before the function existed do not.
   */
  readonly batchTransfers: boolean;
  /**
   * Sends `items` in one transaction, all or none (submit-batch.ts); only with `batchTransfers`.
   * The gas estimate is the one simulation; a revert answers the reason a single
   * authorization would. Resubmitting the same batch returns the same txHash.
   */
  submitTransferWithAuthorizations(items: readonly { auth: TransferAuthorization; signature: Hex }[], opts?: Pick<SubmitOptions, 'recordWithJournal'>): Promise<SubmitResult>;
  /** Never throws; default timeout `confirmTimeoutMs`. */
  waitForReceipt(txHash: Hex, timeoutMs?: number): Promise<ReceiptOutcome>;
  /** True when the node knows the transaction (in its pool or mined). Throws when the node cannot say. */
  transactionKnown(txHash: Hex): Promise<boolean>;
  /** Chain time in seconds: the latest block's timestamp, never behind the wall clock. */
  chainTime(): Promise<bigint>;
  /**
   * The tx that used (authorizer, nonce), from the AuthorizationUsed log; for reconciliation
   * after a crash or an ambiguous `submit_failed`. Checks `txHash` first when given, then scans
   * backwards from the latest block in windows of `logScan.windowBlocks`, down to `fromBlock`,
   * else the highest of the deploy block, the block at `since` and the max lookback.
   * A bigint argument is `fromBlock`. Throws if the RPC fails.
   */
  findAuthorizationTx(authorizer: Address, nonce: Hex, opts?: bigint | FindAuthorizationOptions): Promise<Hex | undefined>;

  /** Address of the custodial wallet at BIP-44 index `index` (cached: callers need no cache of their own). */
  custodialAddress(index: number): Address;
  /**
   * Signs `auth` with the custodial key at `index` (no relay): for flows that verify and relay
   * through their own path, such as a checkout paid from an app wallet. Throws when `auth.from`
   * is not that wallet.
   */
  signAsCustodial(index: number, auth: TransferAuthorization): Promise<Hex>;
  /** Signs an authorization with the custodial key (valid from the latest block - 60 s for 1 h, see custodialValidity in custodial.ts) and relays it. */
  custodialTransfer(params: CustodialTransferParams): Promise<Ok<{ txHash: Hex; from: Address }> | SubmitFailure>;
  /**
   * A custodial authorization (valid from the latest block - 60 s for 1 h) signed with the
   * custodial key, for `relayOnce`. Fails only when the chain cannot be reached.
   */
  signCustodialAuthorization(
    params: CustodialTransferParams,
  ): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>>;
  /** custodialTransfer, then waitForReceipt. */
  custodialTransferAndWait(
    params: CustodialTransferParams,
    timeoutMs?: number,
  ): Promise<Ok<{ txHash: Hex; from: Address; receipt: ReceiptOutcome }> | SubmitFailure>;

  /** Address of the checkout deposit address at `index` (its own BIP-44 branch, DEPOSIT_PATH; cached). */
  depositAddress(index: number): Address;
  /** Like signCustodialAuthorization, signed by the deposit key at `params.fromIndex`. */
  signDepositAuthorization(
    params: CustodialTransferParams,
  ): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>>;
  /** The latest block number. Throws when the node cannot be reached. */
  latestBlockNumber(): Promise<bigint>;
  /** Token Transfer logs to any of `to` in [fromBlock, toBlock], oldest first (deposits.ts). Throws if the RPC fails. */
  findTransfersTo(to: readonly Address[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]>;

  /** Deterministic bytes32 EIP-3009 nonce for a business object (see authorization.ts). */
  nonceFor(kind: string, id: string): Hex;

  /**
   * Embedded chain only: mints `amount` base units to `address` and sends it gas money
   * (default 0.1 ETH; `nativeAmount: 0n` for none). Resolves once both are mined.
   */
  faucet(
    address: Address,
    amount: bigint,
    opts?: { nativeAmount?: bigint },
  ): Promise<Result<{ mintTxHash: Hex; gasTxHash?: Hex }, FaucetReason>>;

  /**
   * The commerce-payments AuthCaptureEscrow v1.0 on this chain (x402 auth-capture), when there:
   * placed at start-up on the embedded chain, found at its canonical address on a real one.
   */
  readonly authCapture?: AuthCaptureDeployment;
  /**
   * A contract call from the relayer (the auth-capture operator): `simulate` runs it against the
   * latest state, `send` simulates, sends (nonce, relay journal) and returns the hash.
   * Optional so test doubles need not provide it.
   */
  relayerCall?: RelayerCallPort;

  /** Readiness: the RPC answers with the expected chain id. */
  ping(): Promise<boolean>;
  /** Stops the embedded anvil (which dumps its state). Idempotent. */
  close(): Promise<void>;
}

export interface AuthCaptureDeployment {
  escrow: Address;
  eip3009Collector: Address;
  /** The refund collector: the escrow's `refund` pulls from the operator through it. */
  operatorRefundCollector: Address;
}

/** A refused call: `data` is the revert data (a custom error to decode) when the node gave it. */
export type RelayerCallFailure = { ok: false; reason: 'reverted' | 'unavailable'; message: string; data?: Hex };

export interface RelayerCallPort {
  simulate(call: { to: Address; data: Hex }): Promise<{ ok: true } | RelayerCallFailure>;
  send(call: { to: Address; data: Hex }): Promise<{ ok: true; txHash: Hex } | RelayerCallFailure>;
  /** EIP-712 signature by the relayer key (the facilitator's receiver authorizer). */
  signTypedData(typed: { domain: Record<string, unknown>; types: Record<string, readonly { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> }): Promise<Hex>;
}

export interface CreateChainOptions {
  dataDir: string;
  /** A real network; unset starts the embedded anvil. */
  rpcUrl?: string;
  /** Checked against the RPC for a real network; the embedded chain's id (default 31337). */
  chainId?: number;
  /** Required with rpcUrl. */
  tokenAddress?: Address;
  /** Required with rpcUrl; embedded default: generated into DATA_DIR/secrets.json. */
  relayerPrivateKey?: Hex;
  /** WALLET_MNEMONIC; default: generated into DATA_DIR/secrets.json. */
  walletMnemonic?: string;
  logger?: Logger;
  /** Default waitForReceipt timeout. Default 60 s. */
  confirmTimeoutMs?: number;
  /** Embedded anvil tuning (tests). */
  anvil?: { port?: number; stateIntervalSeconds?: number };
  /**
   * `findAuthorizationTx` log scans. Many RPC providers refuse eth_getLogs over large ranges:
   * one request covers at most `windowBlocks` (default 10,000), and a scan without a floor
   * goes back at most `maxLookbackBlocks` (default 1,000,000).
   */
  logScan?: { windowBlocks?: bigint; maxLookbackBlocks?: bigint };
  /**
   * Where signed transactions are kept before they are broadcast (`storeRelayJournal(store)`).
   * With it, start-up re-broadcasts what the chain lost and a sweep re-sends dropped ones.
   */
  journal?: RelayJournal;
  /** Journal upkeep. Defaults: sweep every 10 s; keep mined entries 1 h (see RelayJournalRecovery.sweep). */
  journalSweepMs?: number;
  journalRetentionMs?: number;
}
