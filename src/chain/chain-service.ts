/**
 * The chain service over viem, the one implementation of the chain port (chain-port.ts): composes
 * the concerns (verify-authorization.ts, submit.ts over relayer-sender.ts,
 * relay-journal-recovery.ts, log-scan.ts, custodial.ts, faucet.ts, the receipt watcher) and
 * implements the `ChainService` interface. Each concern holds its own state; this file only
 * wires them over the one public client, relayer account and configuration.
 */
import { type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { type Fail, type Ok, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { type AnvilHandle } from './anvil.js';
import { buildTransferTypedData, nonceFor, type Eip712Domain, type TransferAuthorization } from './authorization.js';
import type { AuthCaptureDeployment, ChainService, RelayerCallPort } from './chain.js';
import { relayerCalls } from './relayer-call.js';
import { signAsCustodial, signCustodialAuthorization, type CustodialContext } from './custodial.js';
import { revertReason } from './node-errors.js';
import type { BatchRelay } from './relay-batches.js';
import { faucet } from './faucet.js';
import { findTransfersTo, signDepositAuthorization, type TokenTransfer } from './deposit-addresses.js';
import { DEPOSIT_PATH } from './wallet-secrets.js';
import { findAuthorizationTx, type LogScanContext } from './log-scan.js';
import { authorizationState, balanceOf, chainTime, LatestBlockCache, receiptSource, transactionKnown, type NodeClient } from './node-reads.js';
import { ReceiptWatcher } from './receipts.js';
import type { JournalEntry, RelayJournal } from './relay-journal.js';
import { RelayJournalRecovery } from './relay-journal-recovery.js';
import type { FaucetReason, CustodialTransferParams, FindAuthorizationOptions, ReceiptOutcome, SubmitFailure, SubmitOptions, SubmitResult, VerifyReason } from './chain-results.js';
import { RelayerSender } from './relayer-sender.js';
import { TransferSubmitter } from './submit.js';
import type { SignedAuthorization } from './chain-port.js';
import { TransferVerifier } from './verify-authorization.js';
import type { CustodialKeyring } from './wallet-secrets.js';

export interface ServiceParts {
  log: Logger;
  embedded: boolean;
  anvil: AnvilHandle | undefined;
  rpcUrl: string;
  chainId: number;
  tokenAddress: Address;
  deployBlock: bigint | undefined;
  decimals: number;
  eip712Domain: Eip712Domain;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  custodial: CustodialKeyring;
  confirmTimeoutMs: number;
  logWindow: bigint;
  maxLookback: bigint;
  journal: RelayJournal | undefined;
  journalRetentionMs: number;
  /** CreateChainOptions.journalResendGate. */
  journalResendGate?: ((entry: JournalEntry) => Promise<boolean>) | undefined;
  /** The token has `transferWithAuthorizations` (boot.ts asks it once). */
  batchTransfers: boolean;
  authCapture?: AuthCaptureDeployment;
  /** The batch relay when it is on the chain (relay-batches.ts): settlements (and, version 2, agent transfers with their fee) arriving together share a transaction. */
  batchRelay?: BatchRelay | undefined;
}

export class ChainServiceImpl implements ChainService {
  readonly chainId: number;
  readonly tokenAddress: Address;
  readonly decimals: number;
  readonly eip712Domain: Eip712Domain;
  readonly relayerAddress: Address;
  readonly publicClient: NodeClient;
  readonly embedded: boolean;
  readonly rpcUrl: string;
  readonly deployBlock: bigint | undefined;
  readonly batchTransfers: boolean;
  readonly authCapture: AuthCaptureDeployment | undefined;
  readonly relayerCall: RelayerCallPort;

  private readonly p: ServiceParts;
  private closed: Promise<void> | undefined;
  private readonly receipts: ReceiptWatcher;
  private readonly verifier: TransferVerifier;
  private readonly sender: RelayerSender;
  private readonly submitter: TransferSubmitter;
  private readonly journalRecovery: RelayJournalRecovery | undefined;
  private readonly custodialCtx: CustodialContext;
  private readonly depositCtx: CustodialContext;
  private readonly logScanCtx: LogScanContext;

  constructor(p: ServiceParts) {
    this.p = p;
    this.chainId = p.chainId;
    this.tokenAddress = p.tokenAddress;
    this.decimals = p.decimals;
    this.eip712Domain = Object.freeze({ ...p.eip712Domain });
    this.relayerAddress = p.relayer.address;
    this.publicClient = p.publicClient;
    this.embedded = p.embedded;
    this.rpcUrl = p.rpcUrl;
    this.deployBlock = p.deployBlock;
    this.batchTransfers = p.batchTransfers;
    this.authCapture = p.authCapture;

    // Embedded anvil mines on demand (a block per transaction): poll fast; a real network's blocks come every second or more.
    const pollMs = p.embedded ? 20 : 1_000;
    const latest = new LatestBlockCache(p.publicClient, pollMs);
    this.receipts = new ReceiptWatcher(receiptSource(p.publicClient, p.tokenAddress), pollMs, (err) =>
      p.log.warn({ err: revertReason(err) }, 'could not read receipts'),
    );
    const base = { log: p.log, embedded: p.embedded, publicClient: p.publicClient, relayer: p.relayer, tokenAddress: p.tokenAddress };
    this.verifier = new TransferVerifier({ ...base, eip712Domain: this.eip712Domain, latest });
    this.sender = new RelayerSender({ log: p.log, chainId: p.chainId, publicClient: p.publicClient, relayer: p.relayer, journal: p.journal });
    this.submitter = new TransferSubmitter({ ...base, verifier: this.verifier, sender: this.sender, batchRelay: p.batchRelay });
    this.journalRecovery = p.journal
      ? new RelayJournalRecovery({
          log: p.log,
          embedded: p.embedded,
          chainId: p.chainId,
          relayerAddress: p.relayer.address,
          publicClient: p.publicClient,
          journal: p.journal,
          retentionMs: p.journalRetentionMs,
          waitForReceipt: (h, t) => this.waitForReceipt(h, t),
          ...(p.journalResendGate ? { mayResend: p.journalResendGate } : {}),
          fillNonce: (nonce) => this.sender.fill(nonce),
        })
      : undefined;
    this.relayerCall = relayerCalls(p, this.sender);
    this.custodialCtx = { custodial: p.custodial, eip712Domain: this.eip712Domain, latest };
    this.depositCtx = { custodial: p.custodial.branch(DEPOSIT_PATH), eip712Domain: this.eip712Domain, latest };
    this.logScanCtx = {
      publicClient: p.publicClient,
      tokenAddress: p.tokenAddress,
      deployBlock: p.deployBlock,
      logWindow: p.logWindow,
      maxLookback: p.maxLookback,
    };
  }

  // -------------------------------------------------------------------------- reads

  balanceOf(address: Address): Promise<bigint> {
    return balanceOf(this.publicClient, this.tokenAddress, address);
  }

  nativeBalance(address: Address): Promise<bigint> {
    return this.publicClient.getBalance({ address });
  }

  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean> {
    return authorizationState(this.publicClient, this.tokenAddress, authorizer, nonce);
  }

  transferWithAuthorizationTypedData(auth: TransferAuthorization) {
    return buildTransferTypedData(this.eip712Domain, auth);
  }

  nonceFor(kind: string, id: string): Hex {
    return nonceFor(kind, id);
  }

  transactionKnown(txHash: Hex): Promise<boolean> {
    return transactionKnown(this.publicClient, txHash);
  }

  chainTime(): Promise<bigint> {
    return chainTime(this.publicClient);
  }

  // -------------------------------------------------------------------------- verify and submit

  async verifyTransferAuthorization(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ signer: Address }, VerifyReason>> {
    const v = await this.verifier.verify(auth, signature);
    return v.ok ? { ok: true, signer: v.signer } : v;
  }

  submitTransfers(items: readonly SignedAuthorization[], opts: SubmitOptions = {}): Promise<SubmitResult> {
    return this.submitter.submit(items, opts, this.batchTransfers);
  }

  simulateTransfers(items: readonly SignedAuthorization[]): void {
    if (this.batchTransfers) this.submitter.simulateEarly(items);
  }

  submitTransferWithAuthorization(auth: TransferAuthorization, signature: Hex, opts: SubmitOptions = {}): Promise<SubmitResult> {
    return this.submitTransfers([{ auth, signature }], opts);
  }

  async gasCost(txHash: Hex): Promise<{ gasUsed: bigint; costWei: bigint } | undefined> {
    const r = await this.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    return r ? { gasUsed: r.gasUsed, costWei: r.gasUsed * r.effectiveGasPrice } : undefined;
  }

  async waitForReceipt(txHash: Hex, timeoutMs = this.p.confirmTimeoutMs): Promise<ReceiptOutcome> {
    const r = await this.receipts.wait(txHash, timeoutMs);
    return r ? { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed, ...(r.used ? { used: r.used } : {}) } : { status: 'timeout' };
  }

  findAuthorizationTx(authorizer: Address, nonce: Hex, opts: bigint | FindAuthorizationOptions = {}): Promise<Hex | undefined> {
    return findAuthorizationTx(this.logScanCtx, authorizer, nonce, opts);
  }

  // -------------------------------------------------------------------------- relay journal (boot.ts)

  /** Start-up replay of what the chain lost (RelayJournalRecovery.recover). */
  recoverJournal(): Promise<{ resent: number; dropped: number }> {
    return this.journalRecovery ? this.journalRecovery.recover() : Promise.resolve({ resent: 0, dropped: 0 });
  }

  /** One sweep (RelayJournalRecovery.sweep). */
  sweepJournal(now = Date.now()): Promise<{ resent: number; removed: number }> {
    return this.journalRecovery && !this.closed ? this.journalRecovery.sweep(now) : Promise.resolve({ resent: 0, removed: 0 });
  }

  startJournalSweep(intervalMs: number): void {
    this.journalRecovery?.startSweep(intervalMs);
  }

  // -------------------------------------------------------------------------- custodial

  custodialAddress(index: number): Address {
    return this.p.custodial.address(index);
  }

  signAsCustodial(index: number, auth: TransferAuthorization): Promise<Hex> {
    return signAsCustodial(this.custodialCtx, index, auth);
  }

  signCustodialAuthorization(
    params: CustodialTransferParams,
  ): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>> {
    return signCustodialAuthorization(this.custodialCtx, params);
  }

  async custodialTransfer(params: CustodialTransferParams): Promise<Ok<{ txHash: Hex; from: Address }> | SubmitFailure> {
    const signed = await this.signCustodialAuthorization(params);
    if (!signed.ok) return signed;
    const res = await this.submitTransferWithAuthorization(signed.auth, signed.signature);
    return res.ok ? { ok: true, txHash: res.txHash, from: signed.auth.from } : res;
  }

  async custodialTransferAndWait(
    params: CustodialTransferParams,
    timeoutMs?: number,
  ): Promise<Ok<{ txHash: Hex; from: Address; receipt: ReceiptOutcome }> | SubmitFailure> {
    const res = await this.custodialTransfer(params);
    if (!res.ok) return res;
    return { ...res, receipt: await this.waitForReceipt(res.txHash, timeoutMs) };
  }

  // -------------------------------------------------------------------------- deposit addresses

  depositAddress(index: number): Address {
    return this.depositCtx.custodial.address(index);
  }

  signDepositAuthorization(
    params: CustodialTransferParams,
  ): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>> {
    return signDepositAuthorization(this.depositCtx, params);
  }

  latestBlockNumber(): Promise<bigint> {
    return this.publicClient.getBlockNumber({ cacheTime: 0 });
  }

  findTransfersTo(to: readonly Address[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]> {
    return findTransfersTo(this.logScanCtx, to, fromBlock, toBlock);
  }

  // -------------------------------------------------------------------------- faucet

  faucet(
    address: Address,
    amount: bigint,
    opts: { nativeAmount?: bigint } = {},
  ): Promise<Result<{ mintTxHash: Hex; gasTxHash?: Hex }, FaucetReason>> {
    return faucet(
      {
        embedded: this.embedded,
        publicClient: this.publicClient,
        relayer: this.p.relayer,
        tokenAddress: this.tokenAddress,
        sender: this.sender,
        waitForReceipt: (h) => this.waitForReceipt(h),
      },
      address,
      amount,
      opts,
    );
  }

  // -------------------------------------------------------------------------- lifecycle

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const id = await Promise.race([
        this.publicClient.getChainId(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 3_000).unref()),
      ]);
      return id === this.chainId;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.journalRecovery?.stop();
      this.receipts.close();
      await this.p.anvil?.stop();
      this.p.log.info({ embedded: this.embedded }, 'chain closed');
    })();
    return this.closed;
  }
}
