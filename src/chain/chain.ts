/**
 * The on-chain layer: one ChainService per process, over either an embedded anvil (default)
 * or a real network (CHAIN_RPC_URL + TOKEN_ADDRESS + RELAYER_PRIVATE_KEY).
 *
 * Every token movement is an EIP-3009 TransferWithAuthorization signed by the payer (a
 * browser wallet, or a custodial key held here) and submitted by the relayer account, which
 * pays the gas. Verification follows coinbase/x402's facilitator: recover the signer, check
 * the validity window, the authorization state and the balance, then simulate the call.
 */
import { copyFile, mkdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  BaseError,
  ContractFunctionRevertedError,
  WaitForTransactionReceiptTimeoutError,
  createNonceManager,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseSignature,
  recoverTypedDataAddress,
  size,
  toHex,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type NonceManager,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import { fail, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { AnvilStartError, startAnvil, type AnvilHandle } from './anvil.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import {
  buildTransferTypedData,
  nonceFor,
  type Eip712Domain,
  type TransferAuthorization,
  type TransferTypedData,
  type TransferTypedDataJson,
} from './authorization.js';
import { deployStablecoin, readDeployment, writeDeployment } from './deployment.js';
import { custodialAccount, getOrCreateSecret, loadOrCreateMnemonic } from './wallets.js';

// ---------------------------------------------------------------------------- results

export const VerifyReason = {
  invalidSignature: 'invalid_signature',
  authorizationUsed: 'authorization_used',
  insufficientBalance: 'insufficient_balance',
  notYetValid: 'not_yet_valid',
  expired: 'expired',
  simulationFailed: 'simulation_failed',
  /** The RPC did not answer; nothing was decided, try again later. */
  chainUnavailable: 'chain_unavailable',
} as const;
export type VerifyReason = (typeof VerifyReason)[keyof typeof VerifyReason];

/** Verification reasons, plus `submit_failed`: the node did not take the transaction (RPC down, ...). */
export const SubmitReason = { ...VerifyReason, submitFailed: 'submit_failed' } as const;
export type SubmitReason = (typeof SubmitReason)[keyof typeof SubmitReason];

export const FaucetReason = {
  notAvailable: 'not_available',
  invalidAmount: 'invalid_amount',
  submitFailed: 'submit_failed',
  reverted: 'reverted',
} as const;
export type FaucetReason = (typeof FaucetReason)[keyof typeof FaucetReason];

export interface ReceiptOutcome {
  /** `timeout`: not mined (or the node unreachable) within the wait; ask again later. */
  status: 'success' | 'reverted' | 'timeout';
  blockNumber?: bigint;
  gasUsed?: bigint;
}

export interface CustodialTransferParams {
  /** BIP-44 index of the paying custodial wallet. */
  fromIndex: number;
  to: Address;
  /** Base units (6 decimals for USDC). */
  value: bigint;
  /** bytes32; use `nonceFor(kind, id)` so the same business operation can move money once. */
  nonce: Hex;
}

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
   * Verifies, then sends transferWithAuthorization from the relayer. Resubmitting an
   * authorization whose transaction is pending or mined returns the same txHash.
   */
  submitTransferWithAuthorization(auth: TransferAuthorization, signature: Hex): Promise<Result<{ txHash: Hex }, SubmitReason>>;
  /** Never throws; default timeout `confirmTimeoutMs`. */
  waitForReceipt(txHash: Hex, timeoutMs?: number): Promise<ReceiptOutcome>;
  /**
   * The tx that used (authorizer, nonce), from the AuthorizationUsed log; for reconciliation
   * after a crash or an ambiguous `submit_failed`. Scans from `fromBlock`, else the deploy
   * block (embedded), else the last 10,000 blocks. Throws if the RPC fails.
   */
  findAuthorizationTx(authorizer: Address, nonce: Hex, fromBlock?: bigint): Promise<Hex | undefined>;

  /** Address of the custodial wallet at BIP-44 index `index`. */
  custodialAddress(index: number): Address;
  /** Signs an authorization with the custodial key (valid now-60 s .. now+1 h) and relays it. */
  custodialTransfer(params: CustodialTransferParams): Promise<Result<{ txHash: Hex; from: Address }, SubmitReason>>;
  /** custodialTransfer, then waitForReceipt. */
  custodialTransferAndWait(
    params: CustodialTransferParams,
    timeoutMs?: number,
  ): Promise<Result<{ txHash: Hex; from: Address; receipt: ReceiptOutcome }, SubmitReason>>;

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

  /** Readiness: the RPC answers with the expected chain id. */
  ping(): Promise<boolean>;
  /** Stops the embedded anvil (which dumps its state). Idempotent. */
  close(): Promise<void>;
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
}

const EMBEDDED_CHAIN_ID = 31337;
const RELAYER_MIN_BALANCE = parseEther('100');
const RELAYER_TOP_UP = parseEther('10000');
const DEFAULT_FAUCET_GAS = parseEther('0.1');
// x402's facilitator rejects authorizations expiring within 6 s: too late to get mined.
const EXPIRY_MARGIN_SECONDS = 6n;
const MAX_SEND_ATTEMPTS = 3;
const SENT_CACHE_LIMIT = 10_000;

const noopLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
} as unknown as Logger;

export async function createChain(opts: CreateChainOptions): Promise<ChainService> {
  const log = opts.logger ?? noopLogger;
  const embedded = !opts.rpcUrl;
  let anvil: AnvilHandle | undefined;
  let rpcUrl: string;
  let chainId: number;

  if (embedded) {
    chainId = opts.chainId ?? EMBEDDED_CHAIN_ID;
    anvil = await startEmbeddedAnvil(opts, chainId, log);
    rpcUrl = anvil.rpcUrl;
  } else {
    rpcUrl = opts.rpcUrl!;
    if (!opts.tokenAddress || !opts.relayerPrivateKey) {
      throw new Error('a real network needs tokenAddress and relayerPrivateKey');
    }
    const probe = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }) });
    chainId = await probe.getChainId();
    if (opts.chainId !== undefined && opts.chainId !== chainId) {
      throw new Error(`CHAIN_ID is ${opts.chainId} but ${redactUrl(rpcUrl)} serves chain ${chainId}`);
    }
  }

  try {
    const chain = defineChain({
      id: chainId,
      name: embedded ? 'Embedded anvil' : `Chain ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const transport = http(rpcUrl, { timeout: 15_000 });
    const publicClient = createPublicClient({ chain, transport, pollingInterval: embedded ? 50 : 1_000 });

    const relayerKey =
      opts.relayerPrivateKey ??
      ((await getOrCreateSecret(opts.dataDir, 'relayerPrivateKey', () => generatePrivateKey())) as Hex);
    // Own nonce manager instance (not viem's shared singleton), so two services in one
    // process (tests, a restart) never share cached nonces.
    const nonceManager = createNonceManager({ source: jsonRpc() });
    const relayer = privateKeyToAccount(relayerKey, { nonceManager });
    const wallet = createWalletClient({ account: relayer, chain, transport });

    let tokenAddress: Address;
    let deployBlock: bigint | undefined;
    if (embedded) {
      const balance = await publicClient.getBalance({ address: relayer.address });
      if (balance < RELAYER_MIN_BALANCE) {
        await publicClient.request({
          method: 'anvil_setBalance' as never,
          params: [relayer.address, toHex(RELAYER_TOP_UP)] as never,
        });
      }
      const file = path.join(opts.dataDir, 'chain', 'deployment.json');
      const recorded = await readDeployment(file);
      const code =
        recorded && recorded.chainId === chainId ? await publicClient.getCode({ address: recorded.tokenAddress }) : undefined;
      if (recorded && code && code !== '0x') {
        tokenAddress = recorded.tokenAddress;
        deployBlock = BigInt(recorded.deployBlock);
      } else {
        if (recorded) log.warn({ tokenAddress: recorded.tokenAddress }, 'embedded chain was reset; redeploying the stablecoin');
        const d = await deployStablecoin(publicClient, wallet);
        await writeDeployment(file, d);
        tokenAddress = d.tokenAddress;
        deployBlock = BigInt(d.deployBlock);
        log.info({ tokenAddress, chainId }, 'deployed the stablecoin on the embedded chain');
      }
    } else {
      tokenAddress = getAddress(opts.tokenAddress!);
      const code = await publicClient.getCode({ address: tokenAddress });
      if (!code || code === '0x') throw new Error(`no contract at TOKEN_ADDRESS ${tokenAddress} on chain ${chainId}`);
      if ((await publicClient.getBalance({ address: relayer.address })) === 0n) {
        log.warn({ relayer: relayer.address, chainId }, 'the relayer holds no native currency: every send will fail until it is funded');
      }
    }

    const token = { address: tokenAddress, abi: stablecoinAbi } as const;
    const [domainInfo, decimals] = await Promise.all([
      readDomain(publicClient, tokenAddress),
      publicClient.readContract({ ...token, functionName: 'decimals' }),
    ]);
    const eip712Domain: Eip712Domain = {
      name: domainInfo.name,
      version: domainInfo.version,
      chainId,
      verifyingContract: tokenAddress,
    };
    const mnemonic = await loadOrCreateMnemonic(opts.dataDir, opts.walletMnemonic);

    const service = new ChainServiceImpl({
      log,
      embedded,
      anvil,
      rpcUrl,
      chainId,
      tokenAddress,
      deployBlock,
      decimals: Number(decimals),
      eip712Domain,
      publicClient,
      relayer,
      nonceManager,
      mnemonic,
      confirmTimeoutMs: opts.confirmTimeoutMs ?? 60_000,
    });
    log.info(
      { chainId, tokenAddress, relayer: relayer.address, embedded, tokenName: `${domainInfo.name} v${domainInfo.version}` },
      'chain ready',
    );
    return service;
  } catch (e) {
    await anvil?.stop();
    throw e;
  }
}

/** Starts anvil on DATA_DIR/chain/anvil-state.json, recovering from a corrupt dump. */
async function startEmbeddedAnvil(opts: CreateChainOptions, chainId: number, log: Logger): Promise<AnvilHandle> {
  const dir = path.join(opts.dataDir, 'chain');
  await mkdir(dir, { recursive: true });
  const stateFile = path.join(dir, 'anvil-state.json');
  const backup = `${stateFile}.bak`;
  const start = () => startAnvil({ stateFile, chainId, ...opts.anvil });
  let handle: AnvilHandle;
  try {
    handle = await start();
  } catch (e) {
    // A dump cut short by a crash cannot be parsed; fall back to the last state that loaded.
    if (!(e instanceof AnvilStartError) || !/failed to parse/i.test(e.output)) throw e;
    const aside = `${stateFile}.corrupt-${Date.now()}`;
    await rename(stateFile, aside);
    const hasBackup = await exists(backup);
    if (hasBackup) await copyFile(backup, stateFile);
    log.error(
      { moved: aside, restored: hasBackup ? backup : undefined },
      hasBackup
        ? 'embedded chain state was corrupt; restored the copy from the previous start'
        : 'embedded chain state was corrupt and there is no backup; starting a fresh chain',
    );
    handle = await start();
  }
  // This state loaded fine: keep it as the fallback for the next start.
  if (await exists(stateFile)) await copyFile(stateFile, backup);
  return handle;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** EIP-712 name/version: EIP-5267 eip712Domain() when the token has it, else name()/version() (USDC). */
async function readDomain(client: PublicClient<HttpTransport, Chain>, address: Address) {
  const token = { address, abi: stablecoinAbi } as const;
  try {
    const [, name, version] = await client.readContract({ ...token, functionName: 'eip712Domain' });
    return { name, version };
  } catch {
    const [name, version] = await Promise.all([
      client.readContract({ ...token, functionName: 'name' }),
      client.readContract({ ...token, functionName: 'version' }),
    ]);
    return { name, version };
  }
}

function redactUrl(url: string): string {
  // Provider URLs often carry an API key in the path or query.
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(rpc url)';
  }
}

/** The revert string of a failed call/simulation, when the node returned one. */
function revertReason(e: unknown): string {
  if (e instanceof BaseError) {
    const reverted = e.walk((x) => x instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.shortMessage;
    return e.details && !e.shortMessage.includes(e.details) ? `${e.shortMessage} (${e.details})` : e.shortMessage;
  }
  return e instanceof Error ? e.message : String(e);
}

/** Maps USDC's revert strings to our reasons, so the simulation is the final word when reads race. */
function reasonFromRevert(message: string): VerifyReason {
  if (/authorization is used or canceled/i.test(message)) return VerifyReason.authorizationUsed;
  if (/authorization is not yet valid/i.test(message)) return VerifyReason.notYetValid;
  if (/authorization is expired/i.test(message)) return VerifyReason.expired;
  if (/invalid signature/i.test(message)) return VerifyReason.invalidSignature;
  if (/exceeds balance/i.test(message)) return VerifyReason.insufficientBalance;
  return VerifyReason.simulationFailed;
}

/** True when the node executed the call and it reverted (as opposed to an RPC/network failure). */
function isRevert(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  if (e.walk((x) => x instanceof ContractFunctionRevertedError)) return true;
  return /revert|execution reverted/i.test(`${e.shortMessage} ${e.details ?? ''}`);
}

const NONCE_ERROR = /nonce too low|nonce too high|invalid nonce|nonce has already been used|replacement transaction underpriced|already known|known transaction/i;
function isNonceError(e: unknown): boolean {
  const text = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ''} ${e.message}` : String(e);
  return NONCE_ERROR.test(text);
}

// secp256k1n / 2: signatures with a larger s are malleable and USDC rejects them.
const MAX_S = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

interface ServiceParts {
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
  nonceManager: NonceManager;
  mnemonic: string;
  confirmTimeoutMs: number;
}

class ChainServiceImpl implements ChainService {
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
  private readonly inFlight = new Map<string, Promise<Result<{ txHash: Hex }, SubmitReason>>>();
  /** Authorizations this process sent, so a resubmit returns the same txHash. */
  private readonly sent = new Map<string, Hex>();
  private closed: Promise<void> | undefined;

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
    return custodialAccount(this.p.mnemonic, index).address;
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

      const [latest, used, balance] = await Promise.all([
        this.publicClient.getBlock({ blockTag: 'latest' }),
        this.authorizationState(auth.from, auth.nonce),
        this.balanceOf(auth.from),
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

      try {
        await this.simulateTransfer(auth, signature, sig.contractSigner);
      } catch (e) {
        if (!isRevert(e)) throw e;
        const message = revertReason(e);
        return fail(reasonFromRevert(message), `simulation failed: ${message}`);
      }
      return { ok: true, signer: auth.from, contractSigner: sig.contractSigner };
    } catch (e) {
      this.p.log.warn({ err: revertReason(e) }, 'could not verify an authorization: chain unavailable');
      return fail(VerifyReason.chainUnavailable, `the chain could not be reached: ${revertReason(e)}`);
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

  private async simulateTransfer(auth: TransferAuthorization, signature: Hex, contractSigner: boolean): Promise<void> {
    const head = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce] as const;
    const vrs = this.useVrs(signature, contractSigner);
    const common = { ...this.token, account: this.p.relayer, functionName: 'transferWithAuthorization' } as const;
    if (vrs) await this.publicClient.simulateContract({ ...common, args: [...head, vrs.v, vrs.r, vrs.s] });
    else await this.publicClient.simulateContract({ ...common, args: [...head, signature] });
  }

  private encodeTransfer(auth: TransferAuthorization, signature: Hex, contractSigner: boolean): Hex {
    const head = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce] as const;
    const vrs = this.useVrs(signature, contractSigner);
    return vrs
      ? encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [...head, vrs.v, vrs.r, vrs.s] })
      : encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [...head, signature] });
  }

  // -------------------------------------------------------------------------- submit

  submitTransferWithAuthorization(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ txHash: Hex }, SubmitReason>> {
    const key = `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.submitOnce(key, auth, signature).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async submitOnce(
    key: string,
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ txHash: Hex }, SubmitReason>> {
    const previous = this.sent.get(key);
    if (previous) {
      // Same authorization again: report the transaction already carrying it, unless that
      // one reverted or was dropped by the node.
      const receipt = await this.publicClient.getTransactionReceipt({ hash: previous }).catch(() => undefined);
      if (receipt?.status === 'success') return { ok: true, txHash: previous };
      if (!receipt && (await this.isKnownTransaction(previous))) return { ok: true, txHash: previous };
      this.sent.delete(key);
    }

    const verified = await this.verify(auth, signature);
    if (!verified.ok) return verified;
    const data = this.encodeTransfer(auth, signature, verified.contractSigner);

    let gas: bigint;
    try {
      gas = await this.publicClient.estimateGas({ account: this.p.relayer, to: this.tokenAddress, data });
    } catch (e) {
      const message = revertReason(e);
      if (!isRevert(e)) return fail(SubmitReason.chainUnavailable, `the chain could not be reached: ${message}`);
      return fail(reasonFromRevert(message), `simulation failed: ${message}`);
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
          // The node may still have taken it (e.g. a timeout after delivery): a resubmit of
          // this authorization first looks this hash up instead of sending blindly.
          if (err.txHash) this.remember(key, err.txHash);
          this.p.log.error({ err: revertReason(err.cause ?? e), attempt }, 'relayer send failed');
          return fail(SubmitReason.submitFailed, `could not submit the transaction: ${revertReason(err.cause ?? e)}`);
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

  private async isKnownTransaction(hash: Hex): Promise<boolean> {
    try {
      await this.publicClient.getTransaction({ hash });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Signs locally and sends raw, taking the nonce from viem's nonce manager only after fees
   * and gas are known, so nothing slow or fallible sits between taking a nonce and using it.
   * Knowing the hash before sending lets an ambiguous failure be checked against the node.
   */
  private async sendTransaction(tx: { to: Address; data?: Hex; value?: bigint; gas: bigint }): Promise<Hex> {
    const fees = await this.publicClient.estimateFeesPerGas();
    const key = { address: this.p.relayer.address, chainId: this.chainId };
    const nonce = await this.p.nonceManager.consume({ ...key, client: this.publicClient });
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
      txHash = keccak256(serialized);
      try {
        await this.publicClient.sendRawTransaction({ serializedTransaction: serialized });
      } catch (e) {
        if (/already known|known transaction/i.test(revertReason(e))) return txHash;
        throw e;
      }
      return txHash;
    } catch (e) {
      // The nonce may be unused now: drop the cache so the next send asks the node.
      this.p.nonceManager.reset({ ...key, nonce });
      throw Object.assign(new Error('send failed'), { cause: e, txHash }) as SendError;
    }
  }

  // -------------------------------------------------------------------------- receipts

  async waitForReceipt(txHash: Hex, timeoutMs = this.p.confirmTimeoutMs): Promise<ReceiptOutcome> {
    try {
      const r = await this.publicClient.waitForTransactionReceipt({ hash: txHash, timeout: timeoutMs });
      return { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed };
    } catch (e) {
      if (!(e instanceof WaitForTransactionReceiptTimeoutError)) {
        this.p.log.warn({ txHash, err: revertReason(e) }, 'could not read a receipt');
      }
      return { status: 'timeout' };
    }
  }

  async findAuthorizationTx(authorizer: Address, nonce: Hex, fromBlock?: bigint): Promise<Hex | undefined> {
    // Public RPCs cap log ranges; without a hint, scan the recent past only.
    const start =
      fromBlock ?? this.deployBlock ?? (await this.publicClient.getBlockNumber().then((n) => (n > 10_000n ? n - 10_000n : 0n)));
    const logs = await this.publicClient.getContractEvents({
      ...this.token,
      eventName: 'AuthorizationUsed',
      args: { authorizer, nonce },
      fromBlock: start,
      toBlock: 'latest',
    });
    return logs[0]?.transactionHash ?? undefined;
  }

  // -------------------------------------------------------------------------- custodial

  async custodialTransfer(params: CustodialTransferParams): Promise<Result<{ txHash: Hex; from: Address }, SubmitReason>> {
    const account = custodialAccount(this.p.mnemonic, params.fromIndex);
    const latest = await this.publicClient.getBlock({ blockTag: 'latest' }).catch(() => undefined);
    if (!latest) return fail(SubmitReason.chainUnavailable, 'the chain could not be reached');
    const wall = BigInt(Math.floor(Date.now() / 1000));
    const now = latest.timestamp > wall ? latest.timestamp : wall;
    const auth: TransferAuthorization = {
      from: account.address,
      to: params.to,
      value: params.value,
      validAfter: now - 60n,
      validBefore: now + 3600n,
      nonce: params.nonce.toLowerCase() as Hex,
    };
    const signature = await account.signTypedData(this.transferWithAuthorizationTypedData(auth).typedData);
    const res = await this.submitTransferWithAuthorization(auth, signature);
    return res.ok ? { ok: true, txHash: res.txHash, from: account.address } : res;
  }

  async custodialTransferAndWait(
    params: CustodialTransferParams,
    timeoutMs?: number,
  ): Promise<Result<{ txHash: Hex; from: Address; receipt: ReceiptOutcome }, SubmitReason>> {
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
      await this.p.anvil?.stop();
      this.p.log.info({ embedded: this.embedded }, 'chain closed');
    })();
    return this.closed;
  }
}

type SendError = Error & { cause?: unknown; txHash?: Hex };

/** Gas estimates are exact for the simulated state; leave room for state changing before inclusion. */
function withHeadroom(gas: bigint): bigint {
  return (gas * 5n) / 4n + 10_000n;
}
