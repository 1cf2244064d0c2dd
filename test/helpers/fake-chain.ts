/**
 * An in-memory chain port for fast domain tests (the unit layer; the real-anvil tests are the
 * integration layer). It keeps balances and EIP-3009 authorization states, "mines" a relayed
 * authorization at once, and can be told to misbehave the ways a node does: refuse a send,
 * lose the answer to one, hold receipts back, or revert.
 */
import { keccak256, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildTransferTypedData, nonceFor, type Eip712Domain, type TransferAuthorization } from '../../src/chain/authorization.js';
import type { ReceiptOutcome, SubmitOptions, SubmitResult, TokenTransfer } from '../../src/chain/chain.js';
import type { ChainPort } from '../../src/chain/chain-port.js';
import { SendGroups } from '../../src/chain/send-groups.js';

type Mode = 'mine' | 'refuse' | 'lose-answer' | 'no-receipt' | 'revert' | 'down';

export class FakeChain implements ChainPort {
  readonly chainId = 31337;
  readonly tokenAddress = '0x00000000000000000000000000000000000070c0' as Address;
  readonly decimals = 6;
  readonly embedded = true;
  /** Whether the token takes several authorizations in one transaction (set false for a USDC-like token). */
  batchTransfers = true;
  readonly domain: Eip712Domain = { name: 'Test USD Coin', version: '2', chainId: 31337, verifyingContract: this.tokenAddress };
  readonly eip712Domain = this.domain;
  readonly relayerAddress = '0x000000000000000000000000000000000000beef' as Address;
  readonly balances = new Map<string, bigint>();
  /** (authorizer:nonce) -> the tx that used it. */
  readonly used = new Map<string, Hex>();
  readonly receipts = new Map<Hex, ReceiptOutcome['status']>();
  /** Every transaction "broadcast" (including lost answers and reverts). */
  readonly sent: Hex[] = [];
  /** What the next sends do (one entry per send; then 'mine'). */
  readonly script: Mode[] = [];
  private seq = 0;
  /** Every token movement, as Transfer logs (one block per movement). */
  readonly logs: TokenTransfer[] = [];
  private block = 1n;

  /** A plain ERC-20 `transfer` (what a phone wallet sends to a deposit address). */
  transfer(from: Address, to: Address, value: bigint): Hex {
    if (this.balance(from) < value) throw new Error('transfer amount exceeds balance');
    const txHash = keccak256(toHex(`tx${++this.seq}`));
    this.move(from, to, value, txHash);
    this.receipts.set(txHash, 'success');
    return txHash;
  }
  private move(from: Address, to: Address, value: bigint, txHash: Hex): void {
    this.fund(from, -value);
    this.fund(to, value);
    this.logs.push({ txHash, logIndex: 0, blockNumber: ++this.block, from, to, value });
  }

  fund(address: Address, amount: bigint): void {
    this.balances.set(address.toLowerCase(), this.balance(address) + amount);
  }
  balance(address: Address): bigint {
    return this.balances.get(address.toLowerCase()) ?? 0n;
  }

  custodialAddress(index: number): Address {
    return privateKeyToAccount(custodialKey(index)).address;
  }
  nonceFor(kind: string, id: string): Hex {
    return nonceFor(kind, id);
  }
  async balanceOf(address: Address): Promise<bigint> {
    return this.balance(address);
  }
  async nativeBalance(): Promise<bigint> {
    return 0n;
  }
  async authorizationState(authorizer: Address, nonce: Hex): Promise<boolean> {
    if (this.script[0] === 'down') throw new Error('the chain is down');
    return this.used.has(key(authorizer, nonce));
  }
  transferWithAuthorizationTypedData(auth: TransferAuthorization) {
    return buildTransferTypedData(this.domain, auth);
  }
  async verifyTransferAuthorization(auth: TransferAuthorization) {
    if (this.used.has(key(auth.from, auth.nonce))) return { ok: false as const, reason: 'authorization_used' as const, message: 'used' };
    if (this.balance(auth.from) < auth.value) return { ok: false as const, reason: 'insufficient_balance' as const, message: 'too little' };
    return { ok: true as const, signer: auth.from };
  }
  depositAddress(index: number): Address {
    return privateKeyToAccount(custodialKey(index, 'deposit')).address;
  }
  async signDepositAuthorization(params: { fromIndex: number; to: Address; value: bigint; nonce: Hex }) {
    return this.signWith(custodialKey(params.fromIndex, 'deposit'), params);
  }
  async latestBlockNumber(): Promise<bigint> {
    if (this.script[0] === 'down') throw new Error('the chain is down');
    return this.block;
  }
  async findTransfersTo(to: readonly Address[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]> {
    if (this.script[0] === 'down') throw new Error('the chain is down');
    const want = new Set(to.map((a) => a.toLowerCase()));
    return this.logs.filter((l) => want.has(l.to.toLowerCase()) && l.blockNumber >= fromBlock && l.blockNumber <= toBlock);
  }
  async signCustodialAuthorization(params: { fromIndex: number; to: Address; value: bigint; nonce: Hex }) {
    return this.signWith(custodialKey(params.fromIndex), params);
  }
  private async signWith(key: Hex, params: { to: Address; value: bigint; nonce: Hex }) {
    const account = privateKeyToAccount(key);
    const auth: TransferAuthorization = { from: account.address, to: params.to, value: params.value, validAfter: 0n, validBefore: 2n ** 40n, nonce: params.nonce };
    const signature = await account.signTypedData(this.transferWithAuthorizationTypedData(auth).typedData);
    return { ok: true as const, auth, signature };
  }

  /**
   * Single sends group-committed as the real chain does when the batch relay is there
   * (src/chain/send-groups.ts): while one is in flight the next collect, and go as one
   * `relayBatch` transaction. Off unless a test turns it on.
   */
  groupSends = false;
  private readonly groups = new SendGroups<TransferAuthorization>((group) =>
    group.length === 1 ? this.submitTransferWithAuthorization(group[0]!) : this.relayBatch(group),
  );
  /** Which authorizations each batch-relay transaction used (its receipt's AuthorizationUsed logs). */
  readonly usedIn = new Map<Hex, string[]>();

  /** The port's one send: a single authorization or a batch (subclasses override either half). */
  submitTransfers(items: readonly { auth: TransferAuthorization; signature: Hex }[], opts?: SubmitOptions): Promise<SubmitResult> {
    if (items.length === 1 && this.groupSends && !opts?.alone) return this.groups.submit(items[0]!.auth);
    return items.length === 1 ? this.submitTransferWithAuthorization(items[0]!.auth) : this.submitTransferWithAuthorizations(items);
  }

  /** The batch relay (contracts/BatchRelay.sol): each authorization on its own; a refused one is skipped, the others move. */
  async relayBatch(auths: readonly TransferAuthorization[]): Promise<SubmitResult> {
    const txHash = keccak256(toHex(`tx${++this.seq}`));
    this.sent.push(txHash);
    const used: string[] = [];
    for (const auth of auths) {
      const k = key(auth.from, auth.nonce);
      if (this.used.has(k) || this.balance(auth.from) < auth.value) continue;
      this.move(auth.from, auth.to, auth.value, txHash);
      this.used.set(k, txHash);
      used.push(k);
    }
    this.usedIn.set(txHash, used);
    this.receipts.set(txHash, 'success');
    return { ok: true, txHash, batched: true };
  }
  async gasCost(txHash: Hex): Promise<{ gasUsed: bigint; costWei: bigint } | undefined> {
    return this.receipts.get(txHash) === 'success' ? { gasUsed: 50_000n, costWei: 50_000n } : undefined;
  }

  async submitTransferWithAuthorization(auth: TransferAuthorization): Promise<SubmitResult> {
    const mode = this.script.shift() ?? 'mine';
    const k = key(auth.from, auth.nonce);
    if (mode === 'down') return { ok: false, reason: 'chain_unavailable', message: 'the chain could not be reached' };
    if (this.used.has(k)) return { ok: false, reason: 'authorization_used', message: 'this authorization was already used or canceled' };
    if (this.balance(auth.from) < auth.value) return { ok: false, reason: 'insufficient_balance', message: 'too little' };
    const txHash = keccak256(toHex(`tx${++this.seq}`));
    if (mode === 'refuse') return { ok: false, reason: 'submit_failed', message: 'txpool is full', sendOutcome: 'refused', txHash };
    this.sent.push(txHash);
    if (mode === 'revert') {
      this.receipts.set(txHash, 'reverted');
      return { ok: true, txHash };
    }
    // Mined at once (the answer may still be lost, or the receipt held back).
    this.move(auth.from, auth.to, auth.value, txHash);
    this.used.set(k, txHash);
    this.receipts.set(txHash, mode === 'no-receipt' ? 'timeout' : 'success');
    if (mode === 'lose-answer') return { ok: false, reason: 'submit_failed', message: 'socket hang up', sendOutcome: 'unknown', txHash };
    return { ok: true, txHash };
  }

  /** Several authorizations in one "transaction", all or none, under the same script as a single send. */
  async submitTransferWithAuthorizations(items: readonly { auth: TransferAuthorization; signature: Hex }[]): Promise<SubmitResult> {
    if (!this.batchTransfers) return { ok: false, reason: 'simulation_failed', message: 'this token has no transferWithAuthorizations' };
    const mode = this.script.shift() ?? 'mine';
    if (mode === 'down') return { ok: false, reason: 'chain_unavailable', message: 'the chain could not be reached' };
    if (items.some(({ auth }) => this.used.has(key(auth.from, auth.nonce)))) {
      return { ok: false, reason: 'authorization_used', message: 'this authorization was already used or canceled' };
    }
    const debits = new Map<string, bigint>();
    for (const { auth } of items) debits.set(auth.from.toLowerCase(), (debits.get(auth.from.toLowerCase()) ?? 0n) + auth.value);
    for (const [from, total] of debits) if (this.balance(from as Address) < total) return { ok: false, reason: 'insufficient_balance', message: 'too little' };
    const txHash = keccak256(toHex(`tx${++this.seq}`));
    if (mode === 'refuse') return { ok: false, reason: 'submit_failed', message: 'txpool is full', sendOutcome: 'refused', txHash };
    this.sent.push(txHash);
    if (mode === 'revert') {
      this.receipts.set(txHash, 'reverted');
      return { ok: true, txHash };
    }
    for (const { auth } of items) {
      this.move(auth.from, auth.to, auth.value, txHash);
      this.used.set(key(auth.from, auth.nonce), txHash);
    }
    this.receipts.set(txHash, mode === 'no-receipt' ? 'timeout' : 'success');
    if (mode === 'lose-answer') return { ok: false, reason: 'submit_failed', message: 'socket hang up', sendOutcome: 'unknown', txHash };
    return { ok: true, txHash };
  }

  async waitForReceipt(txHash: Hex): Promise<ReceiptOutcome> {
    const status = this.receipts.get(txHash) ?? 'timeout';
    const used = this.usedIn.get(txHash);
    return status === 'timeout' ? { status } : { status, blockNumber: 1n, gasUsed: 50_000n, ...(used ? { used } : {}) };
  }
  async transactionKnown(txHash: Hex): Promise<boolean> {
    if (this.script[0] === 'down') throw new Error('the chain is down');
    return this.sent.includes(txHash);
  }
  /** Seconds added to the wall clock: a test moves chain time past a session's expiry. */
  advanceSeconds = 0;
  async chainTime(): Promise<bigint> {
    return BigInt(Math.floor(Date.now() / 1000) + this.advanceSeconds);
  }
  async findAuthorizationTx(authorizer: Address, nonce: Hex): Promise<Hex | undefined> {
    return this.used.get(key(authorizer, nonce));
  }
}

function key(authorizer: Address, nonce: Hex): string {
  return `${authorizer.toLowerCase()}:${nonce.toLowerCase()}`;
}

export function custodialKey(index: number, branch = 'custodial'): Hex {
  return keccak256(toHex(`fake-${branch}-${index}`));
}
