/**
 * The chain service over viem: verify (x402-style), relay (nonces, journal, receipts), log
 * scans for reconciliation, custodial signing and the dev faucet.
 */
import { BaseError, TransactionNotFoundError, TransactionReceiptNotFoundError, encodeFunctionData, keccak256, parseEther, parseEventLogs, parseSignature, recoverTypedDataAddress, size, toHex, type Address, type Chain, type Hex, type HttpTransport, type PrivateKeyAccount, type PublicClient } from 'viem';
import { fail, type Fail, type Ok, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { type AnvilHandle } from './anvil.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { buildTransferTypedData, nonceFor, type Eip712Domain, type TransferAuthorization } from './authorization.js';
import { RelayerNonces } from './nonces.js';
import { ReceiptWatcher, type ReceiptSource } from './receipts.js';
import type { JournalEntry, RelayJournal } from './relay-journal.js';
import { CustodialKeyring } from './wallets.js';
import type { ChainService } from './chain.js';
import { FaucetReason, SubmitReason, VerifyReason, type CustodialTransferParams, type FindAuthorizationOptions, type ReceiptOutcome, type SubmitFailure, type SubmitOptions, type SubmitResult } from './results.js';
import { isNonceError, isRefusal, isRevert, reasonFromRevert, revertReason } from './errors.js';

const DEFAULT_FAUCET_GAS = parseEther('0.1');
// x402's facilitator rejects authorizations expiring within 6 s: too late to get mined.
const EXPIRY_MARGIN_SECONDS = 6n;
const MAX_SEND_ATTEMPTS = 3;
const CUSTODIAL_VALID_AFTER_MARGIN = 60n;
// A verification's simulation stands in for the send's own for this long (same call, same state but a block or two).
const SIMULATION_FRESH_MS = 2_000;
const FEE_CACHE_MS = 1_000;
// A journaled transaction neither mined nor in the node's pool after this long was dropped.
const JOURNAL_RESEND_AFTER_MS = 30_000;
// How long a relay waits for a lagging network to reach an authorization's validAfter.
const CHAIN_CATCH_UP_SECONDS = 30;
const CUSTODIAL_VALIDITY_SECONDS = 3600n;
const SENT_CACHE_LIMIT = 10_000;
// Block timestamps and our clock can disagree; a time-derived scan floor starts this much earlier.
const SCAN_CLOCK_SKEW_SECONDS = 600n;

// secp256k1n / 2: signatures with a larger s are malleable and USDC rejects them.
const MAX_S = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

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
  publicClient: PublicClient<HttpTransport, Chain>;
  relayer: PrivateKeyAccount;
  custodial: CustodialKeyring;
  confirmTimeoutMs: number;
  logWindow: bigint;
  maxLookback: bigint;
  journal: RelayJournal | undefined;
  journalRetentionMs: number;
}

export class ChainServiceImpl implements ChainService {
  readonly chainId: number;
  readonly tokenAddress: Address;
  readonly decimals: number;
  readonly eip712Domain: Eip712Domain;
  readonly relayerAddress: Address;
  readonly publicClient: PublicClient<HttpTransport, Chain>;
  readonly embedded: boolean;
  readonly rpcUrl: string;
  readonly deployBlock: bigint | undefined;

  private readonly p: ServiceParts;
  /** In-flight submits by authorization, so a double click sends one transaction. */
  private readonly inFlight = new Map<string, Promise<SubmitResult>>();
  /** Authorizations this process sent, so a resubmit returns the same txHash. */
  private readonly sent = new Map<string, Hex>();
  private closed: Promise<void> | undefined;
  private readonly nonces: RelayerNonces;
  private journalTimer: NodeJS.Timeout | undefined;
  private readonly receipts: ReceiptWatcher;
  /** Successful verifications' simulations, by authorization and signature (see submitOnce). */
  private readonly simulations = new Map<string, Simulation>();
  private latestCache: { at: number; block: Promise<{ number: bigint; timestamp: bigint }> } | undefined;
  private feeCache: { at: number; fees: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined;
  private readonly pollMs: number;
  private readonly startedAt = Date.now();
  /** Journal entries re-broadcast at this start: the start-up backup of the chain state lacks them. */
  private readonly replayed = new Set<string>();

  constructor(p: ServiceParts) {
    this.p = p;
    this.nonces = new RelayerNonces(
      {
        pendingNonce: () => p.publicClient.getTransactionCount({ address: p.relayer.address, blockTag: 'pending' }),
        isKnown: (hash) =>
          this.publicClient.getTransaction({ hash }).then(
            () => true,
            // Only "not found" counts as lost; an RPC failure must not look like a gap.
            (e) => {
              if (e instanceof TransactionNotFoundError) return false;
              throw e;
            },
          ),
      },
      p.log,
    );
    this.pollMs = p.embedded ? 20 : 1_000;
    this.receipts = new ReceiptWatcher(
      receiptSource(p.publicClient),
      p.embedded ? 20 : 1_000,
      (err) => p.log.warn({ err: revertReason(err) }, 'could not read receipts'),
    );
    this.chainId = p.chainId;
    this.tokenAddress = p.tokenAddress;
    this.decimals = p.decimals;
    this.eip712Domain = Object.freeze({ ...p.eip712Domain });
    this.relayerAddress = p.relayer.address;
    this.publicClient = p.publicClient;
    this.embedded = p.embedded;
    this.rpcUrl = p.rpcUrl;
    this.deployBlock = p.deployBlock;
  }

  private get token() {
    return { address: this.tokenAddress, abi: stablecoinAbi } as const;
  }

  balanceOf(address: Address): Promise<bigint> {
    return this.publicClient.readContract({ ...this.token, functionName: 'balanceOf', args: [address] });
  }

  nativeBalance(address: Address): Promise<bigint> {
    return this.publicClient.getBalance({ address });
  }

  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean> {
    return this.publicClient.readContract({ ...this.token, functionName: 'authorizationState', args: [authorizer, nonce] });
  }

  transferWithAuthorizationTypedData(auth: TransferAuthorization) {
    return buildTransferTypedData(this.eip712Domain, auth);
  }

  nonceFor(kind: string, id: string): Hex {
    return nonceFor(kind, id);
  }

  custodialAddress(index: number): Address {
    return this.p.custodial.address(index);
  }

  // -------------------------------------------------------------------------- verify

  async verifyTransferAuthorization(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ signer: Address }, VerifyReason>> {
    const v = await this.verify(auth, signature);
    return v.ok ? { ok: true, signer: v.signer } : v;
  }

  private async verify(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ signer: Address; contractSigner: boolean }, VerifyReason>> {
    try {
      const sig = await this.checkSignature(auth, signature);
      if (!sig.ok) return sig;
      const data = this.encodeTransfer(auth, signature, sig.contractSigner);

      // The reads and the simulation in one round trip. The simulation is the gas estimate
      // (it executes the call against the latest state); a send right after reuses it.
      const simulate = () =>
        this.publicClient.estimateGas({ account: this.p.relayer, to: this.tokenAddress, data }).then(
          (gas) => ({ gas }) as const,
          (e: unknown) => {
            if (!isRevert(e)) throw e;
            return { revert: revertReason(e) } as const;
          },
        );
      const [latest, used, balance, simulated] = await Promise.all([
        this.latestBlock(),
        this.authorizationState(auth.from, auth.nonce),
        this.balanceOf(auth.from),
        simulate(),
      ]);
      // Wall clock, but never behind the chain (anvil's clock can run ahead of ours).
      const wall = BigInt(Math.floor(Date.now() / 1000));
      const now = latest.timestamp > wall ? latest.timestamp : wall;
      if (auth.validAfter > now) {
        return fail(VerifyReason.notYetValid, `authorization is valid only after ${auth.validAfter}`, 'validAfter');
      }
      if (auth.validBefore < now + EXPIRY_MARGIN_SECONDS) {
        return fail(VerifyReason.expired, 'authorization has expired', 'validBefore');
      }
      if (used) return fail(VerifyReason.authorizationUsed, 'this authorization was already used or canceled', 'nonce');
      if (balance < auth.value) {
        return fail(VerifyReason.insufficientBalance, 'the payer does not hold enough of the token', 'value');
      }
      let outcome: { gas: bigint } | { revert: string } = simulated;
      // Valid by the clock but not yet in the latest block (a quiet chain, a lagging network):
      // the simulation failed although the next block accepts it. Let the chain catch up, then
      // simulate again.
      if ('revert' in outcome && auth.validAfter >= latest.timestamp) {
        if (!(await this.chainTimePast(auth.validAfter))) {
          return fail(VerifyReason.notYetValid, `authorization is valid only after ${auth.validAfter}`, 'validAfter');
        }
        outcome = await simulate();
      }
      if ('revert' in outcome) return fail(reasonFromRevert(outcome.revert), `simulation failed: ${outcome.revert}`);
      this.rememberSimulation(auth, signature, { gas: outcome.gas, contractSigner: sig.contractSigner, at: Date.now() });
      return { ok: true, signer: auth.from, contractSigner: sig.contractSigner };
    } catch (e) {
      this.p.log.warn({ err: revertReason(e) }, 'could not verify an authorization: chain unavailable');
      return fail(VerifyReason.chainUnavailable, `the chain could not be reached: ${revertReason(e)}`);
    }
  }

  /** A verification's simulation, for the send that follows it at once (`{verified: true}`). */
  private rememberSimulation(auth: TransferAuthorization, signature: Hex, sim: Simulation): void {
    if (this.simulations.size >= SENT_CACHE_LIMIT) {
      const oldest = this.simulations.keys().next().value;
      if (oldest !== undefined) this.simulations.delete(oldest);
    }
    this.simulations.set(simulationKey(auth, signature), sim);
  }

  private takeSimulation(auth: TransferAuthorization, signature: Hex): Simulation | undefined {
    const key = simulationKey(auth, signature);
    const sim = this.simulations.get(key);
    this.simulations.delete(key);
    return sim && Date.now() - sim.at <= SIMULATION_FRESH_MS ? sim : undefined;
  }

  /** The latest block, shared by calls within one polling interval (one block on anvil at most). */
  private latestBlock(): Promise<{ number: bigint; timestamp: bigint }> {
    const now = Date.now();
    if (this.latestCache && now - this.latestCache.at < this.pollMs) return this.latestCache.block;
    const block = this.publicClient.getBlock({ blockTag: 'latest' }).then((b) => ({ number: b.number, timestamp: b.timestamp }));
    this.latestCache = { at: now, block };
    block.catch(() => {
      if (this.latestCache?.block === block) this.latestCache = undefined;
    });
    return block;
  }

  /** Fee caps shared for a second: they barely move between blocks and each read is a round trip. */
  private fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const now = Date.now();
    if (this.feeCache && now - this.feeCache.at < FEE_CACHE_MS) return this.feeCache.fees;
    const fees = this.publicClient.estimateFeesPerGas();
    this.feeCache = { at: now, fees };
    fees.catch(() => {
      if (this.feeCache?.fees === fees) this.feeCache = undefined;
    });
    return fees;
  }

  /**
   * Makes the latest block's timestamp pass `t` (at most `CHAIN_CATCH_UP_SECONDS` ahead): the
   * embedded chain mines an empty block at the current time; a real network is waited for.
   */
  private async chainTimePast(t: bigint): Promise<boolean> {
    const deadline = Date.now() + CHAIN_CATCH_UP_SECONDS * 1000;
    for (;;) {
      const latest = await this.publicClient.getBlock({ blockTag: 'latest' });
      if (latest.timestamp > t) return true;
      if (this.embedded) {
        const wall = BigInt(Math.floor(Date.now() / 1000));
        const at = wall > t ? wall : t + 1n;
        await this.publicClient.request({ method: 'evm_mine' as never, params: [toHex(at)] as never });
        continue;
      }
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  /** Local ecrecover for EOAs; ERC-1271 through the RPC when `from` is a contract. */
  private async checkSignature(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ contractSigner: boolean }, typeof VerifyReason.invalidSignature>> {
    const { typedData } = this.transferWithAuthorizationTypedData(auth);
    if (size(signature) === 65) {
      try {
        const { s } = parseSignature(signature);
        if (BigInt(s) > MAX_S) {
          return fail(VerifyReason.invalidSignature, 'signature is malleable (high s value)', 'signature');
        }
        const recovered = await recoverTypedDataAddress({ ...typedData, signature });
        if (recovered.toLowerCase() === auth.from.toLowerCase()) return { ok: true, contractSigner: false };
      } catch {
        // malformed: fall through to the contract-wallet check, then reject
      }
    }
    const code = await this.publicClient.getCode({ address: auth.from });
    if (code && code !== '0x') {
      const valid = await this.publicClient
        .verifyTypedData({ address: auth.from, ...typedData, signature })
        .catch(() => false);
      if (valid) return { ok: true, contractSigner: true };
    }
    return fail(VerifyReason.invalidSignature, 'signature does not match the payer address', 'signature');
  }

  /** The (v, r, s) overload for EOA signatures (every USDC version has it), bytes otherwise. */
  private useVrs(signature: Hex, contractSigner: boolean): { v: number; r: Hex; s: Hex } | undefined {
    if (contractSigner || size(signature) !== 65) return undefined;
    const { r, s, v, yParity } = parseSignature(signature);
    return { v: v !== undefined && v >= 27n ? Number(v) : yParity + 27, r, s };
  }

  private encodeTransfer(auth: TransferAuthorization, signature: Hex, contractSigner: boolean): Hex {
    const head = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce] as const;
    const vrs = this.useVrs(signature, contractSigner);
    return vrs
      ? encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [...head, vrs.v, vrs.r, vrs.s] })
      : encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [...head, signature] });
  }

  // -------------------------------------------------------------------------- submit

  submitTransferWithAuthorization(auth: TransferAuthorization, signature: Hex, opts: SubmitOptions = {}): Promise<SubmitResult> {
    const key = `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.submitOnce(key, auth, signature, opts.verified === true).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async submitOnce(key: string, auth: TransferAuthorization, signature: Hex, verified: boolean): Promise<SubmitResult> {
    const previous = this.sent.get(key);
    if (previous) {
      // Same authorization again: report the transaction already carrying it, unless that
      // one reverted or was dropped by the node.
      const receipt = await this.publicClient.getTransactionReceipt({ hash: previous }).catch(() => undefined);
      if (receipt?.status === 'success') return { ok: true, txHash: previous };
      if (!receipt && (await this.isKnownTransaction(previous))) return { ok: true, txHash: previous };
      this.sent.delete(key);
    }

    // A caller that has just verified skips the checks; it only needs to know which overload
    // the signature takes (a local recover). The gas estimate below still executes the call
    // against the latest state: the one simulation right before sending.
    // A verification that just passed carries its simulation (the gas estimate executed the
    // call against the latest state, at most SIMULATION_FRESH_MS ago): send on it. Otherwise
    // verify now (in full, unless the caller verified) and simulate right before sending.
    if (!verified) {
      const v = await this.verify(auth, signature);
      if (!v.ok) return v;
    }
    const fresh = this.takeSimulation(auth, signature);
    const contractSigner = fresh ? fresh.contractSigner : !(await this.isEoaSignature(auth, signature));
    const data = this.encodeTransfer(auth, signature, contractSigner);

    let gas: bigint;
    if (fresh) gas = fresh.gas;
    else {
      try {
        gas = await this.publicClient.estimateGas({ account: this.p.relayer, to: this.tokenAddress, data });
      } catch (e) {
        const message = revertReason(e);
        if (!isRevert(e)) return fail(SubmitReason.chainUnavailable, `the chain could not be reached: ${message}`);
        return fail(reasonFromRevert(message), `simulation failed: ${message}`);
      }
    }

    for (let attempt = 1; ; attempt++) {
      try {
        const txHash = await this.sendTransaction({ to: this.tokenAddress, data, gas: withHeadroom(gas) });
        this.remember(key, txHash);
        this.p.log.info({ txHash, from: auth.from, to: auth.to, value: auth.value.toString() }, 'relayed transferWithAuthorization');
        return { ok: true, txHash };
      } catch (e) {
        const err = e as SendError;
        // Our own transaction may have reached the node before the error (a retried request).
        if (err.txHash && (await this.isKnownTransaction(err.txHash))) {
          this.remember(key, err.txHash);
          return { ok: true, txHash: err.txHash };
        }
        if (!isNonceError(err.cause ?? e) || attempt >= MAX_SEND_ATTEMPTS) {
          const sendOutcome = err.refused ? 'refused' : 'unknown';
          // The node may still have taken it (e.g. a timeout after delivery): a resubmit of
          // this authorization first looks this hash up instead of sending blindly.
          if (err.txHash && sendOutcome === 'unknown') this.remember(key, err.txHash);
          this.p.log.error({ err: revertReason(err.cause ?? e), attempt, sendOutcome, txHash: err.txHash }, 'relayer send failed');
          const failure: SubmitFailure = {
            ...fail(SubmitReason.submitFailed, `could not submit the transaction: ${revertReason(err.cause ?? e)}`),
            sendOutcome,
          };
          if (err.txHash) failure.txHash = err.txHash;
          return failure;
        }
        // Nonce clash (another sender on this key, or a stale cache): before sending again,
        // make sure nobody has used the authorization meanwhile, so it is never sent twice.
        this.p.log.warn({ attempt, err: revertReason(err.cause ?? e) }, 'relayer nonce error; retrying');
        await new Promise((r) => setTimeout(r, 50 * attempt + Math.floor(Math.random() * 50)));
        const used = await this.authorizationState(auth.from, auth.nonce).catch(() => undefined);
        if (used === undefined) return fail(SubmitReason.chainUnavailable, 'the chain could not be reached');
        if (used) return fail(SubmitReason.authorizationUsed, 'this authorization was already used or canceled', 'nonce');
      }
    }
  }

  private remember(key: string, txHash: Hex): void {
    if (this.sent.size >= SENT_CACHE_LIMIT) {
      const oldest = this.sent.keys().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
    this.sent.set(key, txHash);
  }

  /** True when a 65-byte signature recovers locally to `auth.from` (an EOA: the (v, r, s) overload). */
  private async isEoaSignature(auth: TransferAuthorization, signature: Hex): Promise<boolean> {
    if (size(signature) !== 65) return false;
    try {
      const recovered = await recoverTypedDataAddress({ ...this.transferWithAuthorizationTypedData(auth).typedData, signature });
      return recovered.toLowerCase() === auth.from.toLowerCase();
    } catch {
      return false;
    }
  }

  private async isKnownTransaction(hash: Hex): Promise<boolean> {
    try {
      await this.publicClient.getTransaction({ hash });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Signs locally and sends raw, taking the nonce only after fees and gas are known, so
   * nothing slow or fallible sits between taking a nonce and using it. Knowing the hash before
   * sending lets an ambiguous failure be checked against the node. Throws a SendError whose
   * `refused` says the transaction certainly did not reach the node.
   */
  private async sendTransaction(tx: { to: Address; data?: Hex; value?: bigint; gas: bigint }): Promise<Hex> {
    let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    let nonce: number;
    try {
      fees = await this.fees();
      nonce = await this.nonces.take();
    } catch (e) {
      throw Object.assign(new Error('send failed'), { cause: e, refused: true }) as SendError;
    }
    let txHash: Hex | undefined;
    try {
      const serialized = await this.p.relayer.signTransaction({
        type: 'eip1559',
        chainId: this.chainId,
        nonce,
        to: tx.to,
        data: tx.data,
        value: tx.value ?? 0n,
        gas: tx.gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const hash = keccak256(serialized);
      // Durable before it leaves: a crash of the service and its chain together must not
      // lose a transaction the store may already count as settled (relay-journal.ts).
      if (this.p.journal) {
        await this.p.journal.record({ chainId: this.chainId, relayer: this.relayerAddress, nonce, hash, raw: serialized });
      }
      txHash = hash;
      try {
        await this.publicClient.sendRawTransaction({ serializedTransaction: serialized });
      } catch (e) {
        if (!/already known|known transaction/i.test(revertReason(e))) throw e;
      }
      this.nonces.sent(nonce, txHash);
      return txHash;
    } catch (e) {
      const refused = txHash === undefined || isRefusal(e);
      // A refused nonce is free again; an unknown outcome keeps it until the node says it lost it.
      if (refused) {
        if (txHash && this.p.journal) {
          const hash = txHash;
          await this.p.journal
            .forget(this.chainId, this.relayerAddress, nonce, hash)
            .catch((err: unknown) => this.p.log.error({ err, txHash: hash }, 'could not drop a refused transaction from the relay journal'));
        }
        this.nonces.release(nonce);
      } else this.nonces.sent(nonce, txHash!);
      throw Object.assign(new Error('send failed'), { cause: e, txHash, refused }) as SendError;
    }
  }

  // -------------------------------------------------------------------------- relay journal

  /**
   * Start-up: re-broadcasts, in nonce order, every journaled transaction the node does not
   * know (the embedded chain came back from an older dump, or a pool dropped it). The same
   * signed bytes carry the same nonce and hash, and each authorization's EIP-3009 nonce makes a
   * second execution impossible, so this never pays twice. Waits for the re-sent ones on the
   * embedded chain (it mines at once), so records read after start-up see them mined.
   */
  async recoverJournal(): Promise<{ resent: number; dropped: number }> {
    const journal = this.p.journal;
    if (!journal) return { resent: 0, dropped: 0 };
    const entries = await journal.list(this.chainId, this.relayerAddress);
    if (entries.length === 0) return { resent: 0, dropped: 0 };
    const mined = await this.publicClient.getTransactionCount({ address: this.relayerAddress, blockTag: 'latest' });
    const resent: Hex[] = [];
    const stale: string[] = [];
    for (const e of entries) {
      if (await this.isKnownTransaction(e.hash)) continue;
      if (e.nonce < mined) {
        // Another transaction took this nonce (a send from outside this service): ours can never be mined.
        this.p.log.error({ txHash: e.hash, nonce: e.nonce }, 'a journaled transaction lost its nonce to another transaction');
        stale.push(e.id);
        continue;
      }
      try {
        await this.publicClient.sendRawTransaction({ serializedTransaction: e.raw });
        resent.push(e.hash);
        this.replayed.add(e.id);
      } catch (err) {
        const message = revertReason(err);
        if (/already known|known transaction/i.test(message)) continue;
        if (/nonce too low/i.test(message)) {
          stale.push(e.id);
          continue;
        }
        // Later nonces would wait behind this one forever; stop and let the sweep try again.
        this.p.log.error({ txHash: e.hash, nonce: e.nonce, err: message }, 'could not re-broadcast a journaled transaction');
        break;
      }
    }
    await journal.remove(stale);
    if (resent.length > 0) {
      this.p.log.warn({ count: resent.length, first: resent[0] }, 're-broadcast journaled transactions the chain had lost');
      if (this.embedded) await Promise.all(resent.map((h) => this.waitForReceipt(h, 10_000)));
    }
    return { resent: resent.length, dropped: stale.length };
  }

  /**
   * Background: forgets entries safely behind the chain (their nonce is mined and they are
   * older than the retention, long enough for the embedded chain's next state dump) and
   * re-sends entries the node has lost (a dropped transaction on a real network).
   */
  async sweepJournal(now = Date.now()): Promise<{ resent: number; removed: number }> {
    const journal = this.p.journal;
    if (!journal || this.closed) return { resent: 0, removed: 0 };
    const entries = await journal.list(this.chainId, this.relayerAddress);
    if (entries.length === 0) return { resent: 0, removed: 0 };
    const [mined, pending] = await Promise.all([
      this.publicClient.getTransactionCount({ address: this.relayerAddress, blockTag: 'latest' }),
      this.publicClient.getTransactionCount({ address: this.relayerAddress, blockTag: 'pending' }),
    ]);
    const old = (e: JournalEntry, ms: number) => now - Date.parse(e.createdAt) > ms;
    // Embedded: a dump cut short or torn by the crash falls back to the copy taken at start-up
    // (startEmbeddedAnvil), so keep everything that copy lacks: this run's transactions and the
    // ones re-broadcast at this start, however old (the chain's own state grows faster than
    // the journal; the next start takes a new copy and prunes it).
    // Real network: keep mined ones for the retention (reorgs).
    const inBackup = (e: JournalEntry) => Date.parse(e.createdAt) < this.startedAt && !this.replayed.has(e.id);
    const removable = (e: JournalEntry) => e.nonce < mined && (this.embedded ? inBackup(e) : old(e, this.p.journalRetentionMs));
    const remove = entries.filter(removable).map((e) => e.id);
    await journal.remove(remove);
    let resent = 0;
    // Not in the pool and not mined after a while: dropped. Re-send in nonce order.
    for (const e of entries) {
      if (e.nonce < pending || !old(e, JOURNAL_RESEND_AFTER_MS)) continue;
      if (await this.isKnownTransaction(e.hash)) continue;
      try {
        await this.publicClient.sendRawTransaction({ serializedTransaction: e.raw });
        resent++;
      } catch (err) {
        this.p.log.warn({ txHash: e.hash, nonce: e.nonce, err: revertReason(err) }, 'could not re-send a dropped transaction');
        break;
      }
    }
    if (resent > 0) this.p.log.warn({ resent }, 're-sent dropped relayer transactions');
    return { resent, removed: remove.length };
  }

  startJournalSweep(intervalMs: number): void {
    if (!this.p.journal) return;
    let running = false;
    this.journalTimer = setInterval(() => {
      if (running) return;
      running = true;
      this.sweepJournal()
        .catch((err: unknown) => this.p.log.warn({ err: revertReason(err) }, 'relay journal sweep failed'))
        .finally(() => (running = false));
    }, intervalMs);
    this.journalTimer.unref();
  }

  // -------------------------------------------------------------------------- receipts

  async transactionKnown(txHash: Hex): Promise<boolean> {
    try {
      await this.publicClient.getTransaction({ hash: txHash });
      return true;
    } catch (e) {
      if (e instanceof TransactionNotFoundError) return false;
      throw e;
    }
  }

  async chainTime(): Promise<bigint> {
    const block = await this.publicClient.getBlock({ blockTag: 'latest' });
    const wall = BigInt(Math.floor(Date.now() / 1000));
    return block.timestamp > wall ? block.timestamp : wall;
  }

  async waitForReceipt(txHash: Hex, timeoutMs = this.p.confirmTimeoutMs): Promise<ReceiptOutcome> {
    const r = await this.receipts.wait(txHash, timeoutMs);
    return r ? { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed } : { status: 'timeout' };
  }

  async findAuthorizationTx(
    authorizer: Address,
    nonce: Hex,
    opts: bigint | FindAuthorizationOptions = {},
  ): Promise<Hex | undefined> {
    const o: FindAuthorizationOptions = typeof opts === 'bigint' ? { fromBlock: opts } : opts;
    if (o.txHash && (await this.usedAuthorizationIn(o.txHash, authorizer, nonce))) return o.txHash;

    const latest = await this.publicClient.getBlock({ blockTag: 'latest' });
    const floor = o.fromBlock ?? (await this.scanFloor(latest, o.since));
    // Newest first, one bounded window per request: providers refuse (or time out on) wide
    // eth_getLogs ranges, and a recent authorization is found after the first window or two.
    const window = this.p.logWindow;
    for (let to = latest.number; to >= floor; ) {
      const from = to - window + 1n > floor ? to - window + 1n : floor;
      const logs = await this.publicClient.getContractEvents({
        ...this.token,
        eventName: 'AuthorizationUsed',
        args: { authorizer, nonce },
        fromBlock: from,
        toBlock: to,
      });
      const hit = logs.find((l) => !l.removed)?.transactionHash;
      if (hit) return hit;
      if (from === 0n || from === floor) break;
      to = from - 1n;
    }
    return undefined;
  }

  /** True when `txHash` is mined, succeeded and emitted AuthorizationUsed(authorizer, nonce). */
  private async usedAuthorizationIn(txHash: Hex, authorizer: Address, nonce: Hex): Promise<boolean> {
    const receipt = await this.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (!receipt || receipt.status !== 'success') return false;
    const events = parseEventLogs({ abi: stablecoinAbi, eventName: 'AuthorizationUsed', logs: receipt.logs });
    return events.some(
      (ev) =>
        ev.address.toLowerCase() === this.tokenAddress.toLowerCase() &&
        ev.args.authorizer.toLowerCase() === authorizer.toLowerCase() &&
        ev.args.nonce.toLowerCase() === nonce.toLowerCase(),
    );
  }

  /** Lowest block a scan needs: the deploy block, the block at `since` (less clock skew), the max lookback. */
  private async scanFloor(latest: { number: bigint; timestamp: bigint }, since: Date | string | undefined): Promise<bigint> {
    const lookback = latest.number > this.p.maxLookback ? latest.number - this.p.maxLookback : 0n;
    let floor = this.deployBlock !== undefined && this.deployBlock > lookback ? this.deployBlock : lookback;
    if (since !== undefined) {
      const ms = (since instanceof Date ? since : new Date(since)).getTime();
      if (Number.isFinite(ms)) {
        const atTime = await this.blockAtOrBefore(BigInt(Math.floor(ms / 1000)) - SCAN_CLOCK_SKEW_SECONDS, latest, floor);
        if (atTime > floor) floor = atTime;
      }
    }
    return floor;
  }

  /**
   * A block whose timestamp is at or before `ts` (not below `min`): estimated from the recent
   * block rate, then stepped back (doubling) until a block is no later than `ts`. A few calls,
   * instead of a binary search over the whole chain.
   */
  private async blockAtOrBefore(ts: bigint, latest: { number: bigint; timestamp: bigint }, min: bigint): Promise<bigint> {
    if (latest.timestamp <= ts) return latest.number;
    const sampleNumber = latest.number > this.p.logWindow ? latest.number - this.p.logWindow : 0n;
    const sample = await this.publicClient.getBlock({ blockNumber: sampleNumber });
    const spanBlocks = latest.number - sampleNumber;
    const spanSeconds = latest.timestamp - sample.timestamp;
    let back = spanSeconds > 0n ? ((latest.timestamp - ts) * spanBlocks) / spanSeconds : spanBlocks;
    let step = back / 10n > 100n ? back / 10n : 100n;
    for (let i = 0; i < 24; i++) {
      const n = latest.number > back ? latest.number - back : 0n;
      if (n <= min) return min;
      const block = await this.publicClient.getBlock({ blockNumber: n });
      if (block.timestamp <= ts) return n;
      back += step;
      step *= 2n;
    }
    return min;
  }

  // -------------------------------------------------------------------------- custodial

  async signAsCustodial(index: number, auth: TransferAuthorization): Promise<Hex> {
    const account = this.p.custodial.account(index);
    if (account.address.toLowerCase() !== auth.from.toLowerCase()) {
      throw new Error(`custodial wallet ${index} is not the authorizer ${auth.from}`);
    }
    return account.signTypedData(this.transferWithAuthorizationTypedData(auth).typedData);
  }

  async signCustodialAuthorization(
    params: CustodialTransferParams,
  ): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>> {
    const account = this.p.custodial.account(params.fromIndex);
    const latest = await this.latestBlock().catch(() => undefined);
    if (!latest) return fail(VerifyReason.chainUnavailable, 'the chain could not be reached');
    const auth: TransferAuthorization = {
      from: account.address,
      to: params.to,
      value: params.value,
      ...custodialValidity(latest.timestamp, BigInt(Math.floor(Date.now() / 1000))),
      nonce: params.nonce.toLowerCase() as Hex,
    };
    const signature = await account.signTypedData(this.transferWithAuthorizationTypedData(auth).typedData);
    return { ok: true, auth, signature };
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

  // -------------------------------------------------------------------------- faucet

  async faucet(
    address: Address,
    amount: bigint,
    opts: { nativeAmount?: bigint } = {},
  ): Promise<Result<{ mintTxHash: Hex; gasTxHash?: Hex }, FaucetReason>> {
    if (!this.embedded) return fail(FaucetReason.notAvailable, 'the faucet exists only on the embedded chain');
    const nativeAmount = opts.nativeAmount ?? DEFAULT_FAUCET_GAS;
    if (amount <= 0n) return fail(FaucetReason.invalidAmount, 'amount must be positive', 'amount');
    if (nativeAmount < 0n) return fail(FaucetReason.invalidAmount, 'nativeAmount must not be negative', 'nativeAmount');
    const data = encodeFunctionData({ abi: stablecoinAbi, functionName: 'mint', args: [address, amount] });
    let hashes: Hex[];
    try {
      const mintGas = await this.publicClient.estimateGas({ account: this.p.relayer, to: this.tokenAddress, data });
      hashes = await Promise.all([
        this.sendTransaction({ to: this.tokenAddress, data, gas: withHeadroom(mintGas) }),
        ...(nativeAmount > 0n ? [this.sendTransaction({ to: address, value: nativeAmount, gas: 21_000n })] : []),
      ]);
    } catch (e) {
      const err = e as SendError;
      return fail(FaucetReason.submitFailed, `faucet failed: ${revertReason(err.cause ?? e)}`);
    }
    const receipts = await Promise.all(hashes.map((h) => this.waitForReceipt(h)));
    const bad = receipts.findIndex((r) => r.status !== 'success');
    if (bad >= 0) return fail(FaucetReason.reverted, `faucet transaction ${hashes[bad]} ${receipts[bad]!.status}`);
    const [mintTxHash, gasTxHash] = hashes as [Hex, Hex | undefined];
    return gasTxHash ? { ok: true, mintTxHash, gasTxHash } : { ok: true, mintTxHash };
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
      if (this.journalTimer) clearInterval(this.journalTimer);
      this.receipts.close();
      await this.p.anvil?.stop();
      this.p.log.info({ embedded: this.embedded }, 'chain closed');
    })();
    return this.closed;
  }
}

/**
 * The validity window of an authorization we sign ourselves and relay at once. `validAfter`
 * comes from the chain, not the wall clock: the token compares it with `block.timestamp`, and
 * the simulation runs against the latest block, which is older than the wall clock whenever
 * the chain has been quiet (anvil mines only on demand) or a real network's blocks lag our
 * clock. A margin below the latest block keeps it valid in every block still to come.
 * `validBefore` counts from the later of the two clocks, so a chain running ahead of us
 * (anvil's time moved forward) still gets the full hour.
 */
export function custodialValidity(latestBlockTimestamp: bigint, wallSeconds: bigint): { validAfter: bigint; validBefore: bigint } {
  const validAfter = latestBlockTimestamp > CUSTODIAL_VALID_AFTER_MARGIN ? latestBlockTimestamp - CUSTODIAL_VALID_AFTER_MARGIN : 0n;
  const now = latestBlockTimestamp > wallSeconds ? latestBlockTimestamp : wallSeconds;
  return { validAfter, validBefore: now + CUSTODIAL_VALIDITY_SECONDS };
}

/** The receipt watcher's view of the node. */
function receiptSource(client: PublicClient<HttpTransport, Chain>): ReceiptSource {
  const summary = (r: { status: string; blockNumber: string; gasUsed: string }) => ({
    status: r.status === '0x1' ? ('success' as const) : ('reverted' as const),
    blockNumber: BigInt(r.blockNumber),
    gasUsed: BigInt(r.gasUsed),
  });
  return {
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockReceipts(block) {
      try {
        const raw = (await client.request({ method: 'eth_getBlockReceipts' as never, params: [toHex(block)] as never })) as
          | Array<{ transactionHash: Hex; status: string; blockNumber: string; gasUsed: string }>
          | null;
        return (raw ?? []).map((r) => ({ ...summary(r), transactionHash: r.transactionHash }));
      } catch (e) {
        if (e instanceof BaseError && /method not found|not supported|does not exist|unsupported/i.test(`${e.shortMessage} ${e.details ?? ''}`)) {
          return undefined;
        }
        throw e;
      }
    },
    async receipt(hash) {
      try {
        const r = await client.getTransactionReceipt({ hash });
        return { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed };
      } catch (e) {
        if (e instanceof TransactionReceiptNotFoundError) return undefined;
        throw e;
      }
    },
  };
}

interface Simulation {
  gas: bigint;
  contractSigner: boolean;
  at: number;
}

function simulationKey(auth: TransferAuthorization, signature: Hex): string {
  return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature].join(':').toLowerCase();
}

type SendError = Error & { cause?: unknown; txHash?: Hex; refused?: boolean };

/** Gas estimates are exact for the simulated state; leave room for state changing before inclusion. */
function withHeadroom(gas: bigint): bigint {
  return (gas * 5n) / 4n + 10_000n;
}
