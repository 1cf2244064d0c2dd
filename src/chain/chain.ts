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
import type { TransferAuthorization } from './authorization.js';
import type { ChainPort } from './chain-port.js';
import type { JournalEntry, RelayJournal } from './relay-journal.js';
import type { FaucetReason, CustodialTransferParams, ReceiptOutcome, SubmitFailure, SubmitOptions, SubmitResult } from './chain-results.js';

export * from './chain-results.js';
export type { TokenTransfer } from './deposit-addresses.js';
export type { ChainPort, SignedAuthorization } from './chain-port.js';

// ---------------------------------------------------------------------------- service

/**
 * The chain port (chain-port.ts) plus what only the composition root, the doors and the real-chain
 * tests use: the node client, the single-authorization submit and custodial shortcuts the
 * integration tests drive, the faucet, the escrow operator's calls, readiness and shutdown.
 * `ChainServiceImpl` (chain-service.ts) is the one implementation.
 */
export interface ChainService extends ChainPort {
  readonly publicClient: PublicClient<HttpTransport, Chain>;
  readonly rpcUrl: string;
  /** Block the token was deployed at, when known (embedded); a lower bound for log scans. */
  readonly deployBlock: bigint | undefined;

  /** `submitTransfers([{ auth, signature }], opts)`: one authorization (the real-chain tests drive it). */
  submitTransferWithAuthorization(auth: TransferAuthorization, signature: Hex, opts?: SubmitOptions): Promise<SubmitResult>;
  /**
   * Signs `auth` with the custodial key at `index` (no relay): for flows that verify and relay
   * through their own path, such as a checkout paid from an app wallet. Throws when `auth.from`
   * is not that wallet.
   */
  signAsCustodial(index: number, auth: TransferAuthorization): Promise<Hex>;
  /** Signs an authorization with the custodial key and submits it (tests and tools; the domain relays through relayOnce). */
  custodialTransfer(params: CustodialTransferParams): Promise<Ok<{ txHash: Hex; from: Address }> | SubmitFailure>;
  /** custodialTransfer, then waitForReceipt. */
  custodialTransferAndWait(
    params: CustodialTransferParams,
    timeoutMs?: number,
  ): Promise<Ok<{ txHash: Hex; from: Address; receipt: ReceiptOutcome }> | SubmitFailure>;

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
  /** The domain calls it only through `relayOnce` (relay.ts, a `contract-call` move). */
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
  /**
   * Whether a journaled transaction that carries attempts may be broadcast again (start-up replay,
   * a dropped one re-sent): `journalResendGate(store)` in src/settlement/attempts.ts. Without it,
   * every journaled transaction is (one process owns every attempt).
   */
  journalResendGate?: (entry: JournalEntry) => Promise<boolean>;
  /**
   * Runs before the relay journal is touched (the start-up replay, or the clearing after a fresh
   * embedded chain), once the relayer is known: the service takes the relayer's lease there
   * (src/core/chains.ts), so an instance started with a key another live instance holds never
   * re-broadcasts, nor deletes, that instance's journaled transactions. A throw stops the start.
   */
  beforeJournalReplay?: (relayer: Address) => Promise<void>;
  /** Journal upkeep. Defaults: sweep every 10 s; keep mined entries 1 h (see RelayJournalRecovery.sweep). */
  journalSweepMs?: number;
  journalRetentionMs?: number;
}
