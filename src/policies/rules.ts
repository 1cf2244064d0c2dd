/**
 * The rules of spend policies, as pure checks over a valued call (./valuation.ts). Every policy
 * that applies (the account's, the key's) must allow the action: a key's policy can only narrow.
 */
import { parseUnits } from 'viem';
import { cleanPhone } from '../lib/phone.js';
import { CAP_REASON, PolicyReason } from './policy-reasons.js';
import { CAP_WINDOWS, WINDOW_MS, type Caps, type CapWindow, type SpendPolicy } from './policy-schemas.js';
import { USD_DECIMALS, minorText, usdText, type Spend } from './valuation.js';
import type { SpendReservation } from './tables.js';

export interface ScopedPolicy {
  scope: 'account' | 'key';
  keyId?: string;
  policy: SpendPolicy;
}

export interface Refusal {
  reason: string;
  message: string;
}

const ACTION_WORDS = { transfer: 'sending money', bill: 'paying bills', market_stake: 'staking on markets', payment_link: 'creating payment links' } as const;
const WINDOW_WORDS: Record<CapWindow, string> = { daily: 'the last 24 hours', weekly: 'the last 7 days', monthly: 'the last 30 days' };

export function whose(p: Pick<ScopedPolicy, 'scope'>): string {
  return p.scope === 'account' ? 'your spend policy' : "this API key's spend policy";
}
const WHAT_TO_DO = 'You can change the policy on the Developers screen of the app (signed in, with your password).';

/** One spelling per recipient: @handle, +digits, lower-case email or address. */
export function normalizeRecipient(raw: string): string {
  const t = raw.trim();
  if (/^\+?[\d\s\-().]{7,}$/.test(t)) return cleanPhone(t);
  if (/^0x/i.test(t) || t.includes('@') && !t.startsWith('@')) return t.toLowerCase();
  return `@${t.replace(/^@/, '').toLowerCase()}`;
}

/** The action kind, the recipient lists and the per-transaction caps. */
export function checkStatic(spend: Spend, policies: ScopedPolicy[], recipientIds: readonly string[]): Refusal | undefined {
  const ids = new Set(recipientIds.map(normalizeRecipient));
  for (const p of policies) {
    const allowed = p.policy.allowed_actions;
    if (allowed && !allowed.includes(spend.action)) {
      return { reason: PolicyReason.action, message: `Not done: ${whose(p)} does not allow ${ACTION_WORDS[spend.action]}. ${WHAT_TO_DO}` };
    }
    if (ids.size > 0) {
      const blocked = (p.policy.block_recipients ?? []).find((r) => ids.has(normalizeRecipient(r)));
      if (blocked) {
        return { reason: PolicyReason.recipient, message: `Not sent: ${blocked} is on the blocklist of ${whose(p)}. ${WHAT_TO_DO}` };
      }
      const allow = p.policy.allow_recipients;
      if (allow && !allow.some((r) => ids.has(normalizeRecipient(r)))) {
        return {
          reason: PolicyReason.recipient,
          message: `Not sent: ${recipientIds[0]} is not on the list of recipients ${whose(p)} allows. Add them to the allowlist first. ${WHAT_TO_DO}`,
        };
      }
    }
    if (spend.amount) {
      const over = capsOver(p, spend, 'per_transaction', 0n, 0n);
      if (over) return over;
    }
  }
  return undefined;
}

/** The lowest threshold among the policies that the amount exceeds, as text; else undefined. */
export function overThreshold(spend: Spend, policies: ScopedPolicy[]): Refusal | undefined {
  if (!spend.amount) return undefined;
  for (const p of policies) {
    const t = p.policy.approval_threshold_usd;
    if (t == null) continue;
    const limit = parseUnits(t, USD_DECIMALS);
    if (spend.amount.usdMicro > limit) {
      return {
        reason: PolicyReason.approvalRequired,
        message: `This is over the approval threshold of ${usdText(limit)} in ${whose(p)}, so it waits for you: confirm it signed in to the app (or with the Confirm button in the chat or Telegram). Nothing has moved yet.`,
      };
    }
  }
  return undefined;
}

/** Whether any policy has a daily, weekly or monthly cap (else no reservation can refuse a call). */
export function hasRollingCap(policies: readonly ScopedPolicy[]): boolean {
  const rolling = (c: Caps | undefined) => c != null && CAP_WINDOWS.some((w) => c[w] != null);
  return policies.some(({ policy }) => rolling(policy.usd) || Object.values(policy.currencies ?? {}).some(rolling));
}

/** The rolling caps, over the reservations that count (reserved or committed) of the last 30 days. */
export function checkRolling(spend: Spend, policies: ScopedPolicy[], rows: readonly SpendReservation[], now: Date): Refusal | undefined {
  if (!spend.amount) return undefined;
  for (const p of policies) {
    const mine = rows.filter((r) => r.status !== 'released' && (p.scope === 'account' || r.keyId === p.keyId));
    for (const w of CAP_WINDOWS) {
      const since = now.getTime() - WINDOW_MS[w];
      const inWindow = mine.filter((r) => Date.parse(r.createdAt) > since);
      const usd = inWindow.reduce((s, r) => s + BigInt(r.usd), 0n);
      const minor = inWindow.filter((r) => r.currency === spend.amount!.currency).reduce((s, r) => s + BigInt(r.minor), 0n);
      const over = capsOver(p, spend, w, usd, minor);
      if (over) return over;
    }
  }
  return undefined;
}

function capsOver(p: ScopedPolicy, spend: Spend, field: keyof Caps, usedUsd: bigint, usedMinor: bigint): Refusal | undefined {
  const a = spend.amount!;
  const usdCap = p.policy.usd?.[field];
  if (usdCap != null) {
    const cap = parseUnits(usdCap, USD_DECIMALS);
    if (usedUsd + a.usdMicro > cap) return capRefusal(p, field, usdText(cap), usdText(cap > usedUsd ? cap - usedUsd : 0n), usdText(a.usdMicro));
  }
  const curCap = p.policy.currencies?.[a.currency]?.[field];
  if (curCap != null) {
    const cap = parseUnits(curCap, a.decimals);
    const fmt = (v: bigint) => minorText(v, a.decimals, a.currency);
    if (usedMinor + a.minor > cap) return capRefusal(p, field, fmt(cap), fmt(cap > usedMinor ? cap - usedMinor : 0n), fmt(a.minor));
  }
  return undefined;
}

function capRefusal(p: ScopedPolicy, field: keyof Caps, cap: string, left: string, asked: string): Refusal {
  const message =
    field === 'per_transaction'
      ? `Not done: ${asked} is over the limit of ${cap} per transaction in ${whose(p)}. Try a smaller amount. ${WHAT_TO_DO}`
      : `Not done: ${asked} would go over the ${field} cap of ${cap} in ${whose(p)} (${WINDOW_WORDS[field]}); ${left} is left. Try a smaller amount or wait. ${WHAT_TO_DO}`;
  return { reason: CAP_REASON[field], message };
}
