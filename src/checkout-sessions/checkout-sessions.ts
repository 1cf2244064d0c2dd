/**
 * Checkout sessions as their payers see them (issue 22 step 1; docs/checkout.md): `view(id)`
 * builds the one view model every door renders, and `read(id)` serves the public JSON of it,
 * the most polled route, from a per-process cache that is checked against the store on every
 * read (issue 23 point 4). `pay(id, input)` pays it by one of the registered methods (pay.ts,
 * methods/payment-methods.ts).
 *
 * Freshness: a read always loads the payment (its status and `updatedAt` are the version) and,
 * while pending, the deposit row; the cached answer is reused only while both versions match,
 * so a settled payment shows `settled` on the next poll on any instance (two instances on one
 * PostgreSQL database: test/checkout-sessions/read-fresh.instances.pg.test.ts). Only the
 * merchant's account name is remembered for a few seconds (a rename is no state change of the
 * payment; ACCOUNT_NAME_TTL_MS below).
 */
import { createHash } from 'node:crypto';
import type { Address } from 'viem';
import type { Payment } from '../payments/payments.js';
import { stablecoinText } from '../payments/payments.js';
import { merchantNameFor } from '../payments/merchant-name.js';
import type { NetworkInfo } from '../wallet/wallets.js';
import { checkoutJson } from './json.js';
import { redirectUrlFor } from './redirect-url.js';
import { noSuchSession, payWith, type PaymentMethods, type PayRails, type PayResult } from './pay.js';
import { shippedMethods, type PayInput, type RefusalOf } from './methods/payment-methods.js';
import type { CheckoutSessionView, DepositView, ReceiptView } from './view.js';

/** What the view is built from: the domain services, narrowed to the calls it makes. */
export interface CheckoutSessionsDeps {
  payments: { get(id: string): Promise<Payment | undefined> };
  accounts: { get(id: string): Promise<{ name: string } | undefined> };
  settlement: {
    /** Where the session settles to. */
    recipientFor(p: Payment): Promise<Address | undefined>;
    /** The session's deposit address (given out on first use while pending; settlement/deposit-watcher.ts). */
    deposits: { depositFor(p: Payment): Promise<{ address: string; received: bigint; remaining: bigint; uri?: string } | undefined> };
  };
  refunds: {
    ofPayment(accountId: string, paymentId: string): Promise<Array<{ status: string; amount: string; stablecoinAmount: string; createdAt: string; succeededAt?: string; txHash?: string }>>;
  };
  /** The chain a session pays on: its mode's (docs/test-mode.md, "Where test mode settles"). */
  chainOf(p: Pick<Payment, 'livemode'>): { network: NetworkInfo; tokenAddress: string };
  tokenSymbol: string;
  /** Warns of a deposit address that could not be given out now (the rest of the view still answers). */
  logger?: { warn(obj: object, msg: string): void };
  /** The session's mode's chain and settlement, which `pay` settles on; without it nothing can be paid. */
  rails?: (p: Payment) => PayRails;
  /** The ways to pay; default the shipped list (methods/payment-methods.ts). */
  methods?: PaymentMethods;
}

export interface ViewOptions {
  /** Give out / read the deposit address (pending sessions only). Default true. */
  deposit?: boolean;
  /** Read the refunds for the receipt of a paid session. Default true. */
  receipt?: boolean;
  /** Read where the session settles to. Default true. */
  payTo?: boolean;
  /**
   * Reuse the merchant's account name for ACCOUNT_NAME_TTL_MS, as the public read does. The
   * payer-facing answers (settle) take it; the default reads the account (a merchant's own view).
   */
  reuseName?: boolean;
}

/** A serialised public answer, with its weak ETag. */
export interface CheckoutAnswer {
  body: string;
  etag: string;
}

interface Cached extends CheckoutAnswer {
  version: string;
}

/** Answers kept (per process); beyond it the cache starts over. */
const CACHE_MAX = 10_000;
/** How long a merchant's account name is reused by the public read. */
export const ACCOUNT_NAME_TTL_MS = 5_000;

const PAID = new Set(['settled', 'refunded', 'captured']);

/** `redirect_url` with `payment_id` and `status` added to its query (keeping the merchant's own). */
export function redirectFor(p: Pick<Payment, 'id' | 'redirectUrl' | 'status'>, status: string = p.status): string {
  return redirectUrlFor(p.redirectUrl, p.id, status);
}

export class CheckoutSessions {
  private readonly answers = new Map<string, Cached>();
  private readonly names = new Map<string, { name: string | undefined; at: number }>();

  private readonly methods: PaymentMethods;

  constructor(private readonly d: CheckoutSessionsDeps) {
    this.methods = d.methods ?? shippedMethods();
  }

  /**
   * Pays session `id`: the adapter of `input.method` turns the input into one authorization,
   * settled on the session's mode's chain, or refuses it by name (nothing sent).
   */
  async pay<I extends PayInput>(id: string, input: I): Promise<PayResult<RefusalOf<I['method']>>> {
    const p = await this.d.payments.get(id);
    if (!p || !this.d.rails) return noSuchSession(id);
    return (await payWith(this.methods, this.d.rails(p), p, input)) as PayResult<RefusalOf<I['method']>>;
  }

  /** The view of session `id`, or undefined when there is no such payment. */
  async view(id: string, opts: ViewOptions = {}): Promise<CheckoutSessionView | undefined> {
    const p = await this.d.payments.get(id);
    return p && this.viewOf(p, opts);
  }

  /** The view of a payment already read (a settle result's payment, say). */
  async viewOf(p: Payment, opts: ViewOptions = {}): Promise<CheckoutSessionView> {
    const [name, deposit, payTo, receipt] = await Promise.all([
      this.merchantName(p, opts.reuseName === true),
      opts.deposit === false ? undefined : this.deposit(p),
      opts.payTo === false ? undefined : this.d.settlement.recipientFor(p).catch(() => undefined),
      opts.receipt === false || !PAID.has(p.status) ? undefined : this.receipt(p),
    ]);
    return this.build(p, name, deposit, payTo, receipt);
  }

  /**
   * The public JSON answer (`{ok:true, payment}`) of session `id`, reused while the payment and
   * its deposit are unchanged. Undefined: no such payment.
   */
  async read(id: string): Promise<CheckoutAnswer | undefined> {
    const p = await this.d.payments.get(id);
    if (!p) return undefined;
    const [name, deposit] = await Promise.all([this.merchantName(p, true), this.deposit(p)]);
    // Status (the effective one: a pending payment past its expiry reads expired) and the row's
    // version; the deposit's progress; the name shown.
    const version = `${p.status}|${p.updatedAt}|${deposit ? `${deposit.address}|${deposit.received}|${deposit.uri ?? ''}` : ''}|${name}`;
    const hit = this.answers.get(id);
    if (hit && hit.version === version) return hit;
    const view = this.build(p, name, deposit, undefined, undefined);
    const body = JSON.stringify({ ok: true, payment: checkoutJson(view) });
    const answer: Cached = { version, body, etag: `W/"${createHash('sha1').update(body).digest('base64url')}"` };
    if (this.answers.size >= CACHE_MAX) this.answers.clear();
    this.answers.set(id, answer);
    return answer;
  }

  private build(p: Payment, merchantName: string, deposit: DepositView | undefined, payTo: Address | undefined, receipt: ReceiptView | undefined): CheckoutSessionView {
    const manual = p.captureMethod === 'manual';
    const chain = this.d.chainOf(p);
    return {
      id: p.id,
      merchantName,
      description: p.description ?? '',
      amount: Number(p.amount),
      amountDecimal: p.amount,
      currency: p.currency,
      reference: p.reference ?? '',
      status: p.status,
      livemode: p.livemode !== false,
      hasPayout: p.payoutAddress !== undefined,
      expiresAt: p.expiresAt,
      stablecoinAmount: stablecoinText(p),
      stablecoinBaseUnits: p.stablecoinAmount,
      rate: p.rate,
      chainId: chain.network.chainId,
      tokenAddress: chain.tokenAddress,
      tokenSymbol: this.d.tokenSymbol,
      networkName: chain.network.name,
      ...(chain.network.explorerUrl ? { explorerUrl: chain.network.explorerUrl } : {}),
      ...(payTo ? { payTo } : {}),
      returnUrl: redirectFor(p),
      ...(p.canceledAt ? { canceledAt: p.canceledAt } : {}),
      ...(deposit ? { deposit } : {}),
      ...(manual
        ? {
            capture: {
              capturable: p.amountCapturable ?? '0',
              captured: p.amountCaptured ?? '0',
              voided: p.amountVoided ?? '0',
              ...(p.authorizedAt ? { authorizedAt: p.authorizedAt } : {}),
              ...(p.captureBefore ? { captureBefore: p.captureBefore } : {}),
            },
          }
        : {}),
      ...(receipt ? { receipt } : {}),
    };
  }

  /** The name the payer sees; the public read reuses the account's for ACCOUNT_NAME_TTL_MS. */
  private async merchantName(p: Payment, reuse: boolean): Promise<string> {
    if (p.merchantName) return p.merchantName;
    const known = reuse ? this.names.get(p.accountId) : undefined;
    if (known && Date.now() - known.at < ACCOUNT_NAME_TTL_MS) return merchantNameFor(p, known.name === undefined ? undefined : { name: known.name });
    const account = await this.d.accounts.get(p.accountId);
    if (this.names.size >= CACHE_MAX) this.names.clear();
    this.names.set(p.accountId, { name: account?.name, at: Date.now() });
    return merchantNameFor(p, account);
  }

  private async deposit(p: Payment): Promise<DepositView | undefined> {
    if (p.status !== 'pending') return undefined;
    const d = await this.d.settlement.deposits.depositFor(p).catch((err) => void this.d.logger?.warn({ err, paymentId: p.id }, 'no deposit address for this session now'));
    if (!d) return undefined;
    return { address: d.address, received: String(d.received), remaining: String(d.remaining), ...(d.uri ? { uri: d.uri } : {}) };
  }

  private async receipt(p: Payment): Promise<ReceiptView> {
    const refunds = (await this.d.refunds.ofPayment(p.accountId, p.id)).filter((r) => r.status !== 'failed');
    const refunded = p.amountRefunded && p.amountRefunded !== '0' ? p.amountRefunded : undefined;
    return {
      ...(p.settledAt ? { paidAt: p.settledAt } : {}),
      ...(p.txHash ? { txHash: p.txHash } : {}),
      ...(p.payer ? { payer: p.payer } : {}),
      refunds: refunds.map((r) => ({
        amount: r.amount,
        stablecoinBaseUnits: r.stablecoinAmount,
        status: r.status === 'succeeded' ? ('succeeded' as const) : ('pending' as const),
        at: r.succeededAt ?? r.createdAt,
        ...(r.txHash ? { txHash: r.txHash } : {}),
      })),
      ...(refunded ? { amountRefunded: refunded } : {}),
      ...(refunded && p.stablecoinRefunded ? { stablecoinRefunded: p.stablecoinRefunded } : {}),
    };
  }
}
