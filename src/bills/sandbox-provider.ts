import { createHash, createHmac } from 'node:crypto';
import { formatUnits, parseUnits } from 'viem';
import { fail, type Result } from '../lib/results.js';
import { checkBillAmount, validateAccountNumber } from './bill-checks.js';
import { BILLER_CURRENCY_DECIMALS, type Biller, type BillerCatalogue } from './biller-schema.js';
import { wordTable } from '../lib/word-table.js';

/**
 * What the bills module needs from an aggregator (VTpass, Flutterwave bills, Cellulant...):
 * look a customer up before taking money, then buy. Real providers are remote, hence async.
 */
export interface BillProvider {
  validateCustomer(billerId: string, account: string): Promise<Result<CustomerLookup, BillProviderReason>>;
  purchase(request: BillPurchaseRequest): Promise<Result<BillReceipt, BillProviderReason>>;
}

export type CustomerLookup = { customerName: string; accountNumber: string };

export type BillPurchaseRequest = {
  billerId: string;
  account: string;
  /** Minor units of `currency` (kobo, cents): 3000 NGN is 300000n. */
  amountMinor: bigint;
  currency: string;
  /** Caller's idempotency key for this purchase, 1-64 characters. */
  reference: string;
};

export type BillReceipt = {
  receiptNumber: string;
  customerName: string;
  accountNumber: string;
  /** Prepaid electricity only: the 20-digit token to key into the meter. */
  token?: string;
  /** Prepaid electricity only: energy bought, decimal string (2 decimals, rounded down). */
  units?: string;
  unitLabel?: 'kWh';
};

export const BILL_PROVIDER_REASONS = {
  unknownBiller: 'unknown_biller',
  invalidAccountNumber: 'invalid_account_number',
  customerNotFound: 'customer_not_found',
  providerUnavailable: 'provider_unavailable',
  purchaseDeclined: 'purchase_declined',
  currencyMismatch: 'currency_mismatch',
  invalidAmount: 'invalid_amount',
  amountBelowMinimum: 'amount_below_minimum',
  amountAboveMaximum: 'amount_above_maximum',
  invalidReference: 'invalid_reference',
  duplicateReference: 'duplicate_reference',
} as const;
export type BillProviderReason = (typeof BILL_PROVIDER_REASONS)[keyof typeof BILL_PROVIDER_REASONS];

/** Reasons worth retrying later with the same reference. */
export const RETRYABLE_BILL_REASONS: ReadonlySet<BillProviderReason> = new Set(['provider_unavailable']);

const SANDBOX_NAMES: Readonly<Record<string, readonly string[]>> = wordTable({
  NG: ['Adaeze Okafor', 'Babatunde Adeyemi', 'Chinedu Eze', 'Funmilayo Balogun', 'Ibrahim Musa', 'Ngozi Nwosu'],
  KE: ['Wanjiku Kamau', 'Otieno Ochieng', 'Achieng Atieno', 'Mwangi Njoroge', 'Fatuma Hassan', 'Kiptoo Cheruiyot'],
  GH: ['Kwame Mensah', 'Akosua Boateng', 'Kofi Asante', 'Ama Owusu', 'Yaw Darko', 'Efua Quaye'],
  ZA: ['Thabo Nkosi', 'Lerato Dlamini', 'Sipho Ndlovu', 'Naledi Mokoena', 'Pieter van der Merwe', 'Zanele Khumalo'],
});

export type SandboxBillProviderOptions = {
  /** HMAC key for tokens and receipt numbers; any fixed value keeps them stable across restarts. */
  secret?: string;
};

/**
 * Deterministic stand-in for a bill aggregator; its rules are in docs/bills-sandbox.md.
 * Outcomes depend only on the inputs (and, for replays, on purchases seen by this instance).
 */
export class SandboxBillProvider implements BillProvider {
  private readonly secret: string;
  private readonly billers: ReadonlyMap<string, Biller>;
  /** reference -> fingerprint and receipt, so a retried purchase replays instead of buying twice. */
  private readonly purchases = new Map<string, { fingerprint: string; receipt: BillReceipt }>();

  constructor(catalogue: BillerCatalogue, options: SandboxBillProviderOptions = {}) {
    this.secret = options.secret ?? 'stablepay-bills-sandbox';
    this.billers = new Map(catalogue.billers.map((b) => [b.id, b]));
  }

  async validateCustomer(billerId: string, account: string): Promise<Result<CustomerLookup, BillProviderReason>> {
    return this.lookup(billerId, account);
  }

  async purchase(request: BillPurchaseRequest): Promise<Result<BillReceipt, BillProviderReason>> {
    const reference = request.reference.trim();
    if (reference.length < 1 || reference.length > 64) {
      return fail('invalid_reference', 'reference must be 1-64 characters', 'reference');
    }
    const biller = this.billers.get(request.billerId);
    if (!biller) return fail('unknown_biller', `No such biller: ${request.billerId}`, 'billerId');
    if (request.currency.toUpperCase() !== biller.currency) {
      return fail('currency_mismatch', `${biller.name} is paid in ${biller.currency}, not ${request.currency}.`, 'currency');
    }
    if (request.amountMinor <= 0n) return fail('invalid_amount', 'Amount must be greater than zero.', 'amountMinor');
    const decimals = BILLER_CURRENCY_DECIMALS[biller.currency] ?? 2;
    const limits = checkBillAmount(biller, formatUnits(request.amountMinor, decimals));
    if (!limits.ok) return limits;

    const customer = this.lookup(request.billerId, request.account);
    if (!customer.ok) return customer;
    const account = customer.accountNumber;

    const fingerprint = `${biller.id}|${account}|${request.amountMinor}|${biller.currency}`;
    const previous = this.purchases.get(reference);
    if (previous) {
      if (previous.fingerprint !== fingerprint) {
        return fail('duplicate_reference', `reference ${reference} was already used for a different purchase`, 'reference');
      }
      return { ok: true, ...previous.receipt };
    }
    if (account.endsWith('5555')) {
      return fail('purchase_declined', `${biller.name} declined the purchase for ${account}.`, 'account');
    }

    const receipt: BillReceipt = {
      receiptNumber: `SBX-${this.digits(`receipt:${reference}`, 12)}`,
      customerName: customer.customerName,
      accountNumber: account,
    };
    if (biller.returnsToken) {
      receipt.token = this.digits(`token:${reference}`, 20);
      if (biller.tariff) {
        const priceMinor = parseUnits(biller.tariff.pricePerUnit, decimals);
        // Hundredths of a kWh, rounded down: integer division on base units, never floats.
        receipt.units = formatUnits((request.amountMinor * 100n) / priceMinor, 2);
        receipt.unitLabel = biller.tariff.unit;
      }
    }
    this.purchases.set(reference, { fingerprint, receipt });
    return { ok: true, ...receipt };
  }

  private lookup(billerId: string, account: string): Result<CustomerLookup, BillProviderReason> {
    const biller = this.billers.get(billerId);
    if (!biller) return fail('unknown_biller', `No such biller: ${billerId}`, 'billerId');
    const valid = validateAccountNumber(biller, account);
    if (!valid.ok) return valid;
    const number = valid.accountNumber;
    if (number.endsWith('0000')) {
      return fail('customer_not_found', `${biller.name} has no customer with ${biller.account.label.toLowerCase()} ${number}.`, 'account');
    }
    if (number.endsWith('9999')) {
      return fail('provider_unavailable', `${biller.name} is not answering right now; try again shortly.`);
    }
    const names = SANDBOX_NAMES[biller.country] ?? SANDBOX_NAMES.NG!;
    const pick = createHash('sha256').update(`${biller.id}:${number}`).digest().readUInt32BE(0) % names.length;
    return { ok: true, customerName: names[pick]!, accountNumber: number };
  }

  /** `length` decimal digits from an HMAC of `label`: stable for the same secret and input. */
  private digits(label: string, length: number): string {
    const mac = createHmac('sha256', this.secret).update(label).digest('hex');
    return (BigInt(`0x${mac}`) % 10n ** BigInt(length)).toString().padStart(length, '0');
  }
}

/** "12345678901234567890" -> "1234 5678 9012 3456 7890", the way meters and receipts print it. */
export function formatMeterToken(token: string): string {
  return token.replace(/(\d{4})(?=\d)/g, '$1 ');
}
