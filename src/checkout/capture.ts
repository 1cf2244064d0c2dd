/**
 * What the checkout page tells the payer of a manual-capture session (x402 auth-capture,
 * docs/x402.md): the money held and not yet charged, what the merchant captured, and what went
 * back, in plain words ("Authorized — 2.00 USDC held, not yet charged").
 */
import { formatUsdc } from '../lib/money.js';
import { timeText } from '../lib/time-text.js';
import type { CaptureView } from '../checkout-sessions/view.js';
import { escapeHtml, row } from './html.js';

export interface CaptureModel {
  /** "2.00 USDC": held in escrow now (capturable), captured by the merchant, returned to the payer. */
  heldText?: string;
  capturedText?: string;
  returnedText?: string;
  /** When a hold not captured is released automatically. */
  captureBefore?: string;
}

export function captureModel(c: CaptureView, tokenSymbol: string): CaptureModel {
  const text = (units: string) => (BigInt(units) > 0n ? formatUsdc(units).replace(/ USDC$/, ` ${tokenSymbol}`) : undefined);
  return { heldText: text(c.capturable), capturedText: text(c.captured), returnedText: text(c.voided), captureBefore: c.captureBefore };
}

/** The status line of an authorized, captured or voided session; undefined for other states. */
export function captureStatusText(status: string, c: CaptureModel | undefined, merchant: string): string | undefined {
  if (!c) return undefined;
  if (status === 'authorized') {
    const by = c.captureBefore ? ` ${merchant} charges it or releases it by ${timeText(c.captureBefore)}; if not, it returns to you then.` : '';
    return `Authorized — ${c.heldText ?? '0.00 USDC'} held, not yet charged.${by}`;
  }
  if (status === 'captured' || status === 'refunded') {
    const parts = [`Captured ${c.capturedText ?? '0.00 USDC'}`];
    if (c.returnedText) parts.push(`${c.returnedText} returned to you`);
    if (c.heldText) parts.push(`${c.heldText} still held, not yet charged`);
    return `${parts.join('; ')}.`;
  }
  if (status === 'voided') return `Released — ${c.returnedText ?? 'the held amount'} returned to you. Nothing was charged.`;
  return undefined;
}

/** The amounts table's rows: held, captured, returned (each only when not zero). */
export function captureRows(c: CaptureModel | undefined): string {
  if (!c) return '';
  return [
    c.heldText ? row('Held, not charged', `<span id="capture-held">${escapeHtml(c.heldText)}</span>`) : '',
    c.capturedText ? row('Captured', `<span id="capture-captured">${escapeHtml(c.capturedText)}</span>`) : '',
    c.returnedText ? row('Returned to you', `<span id="capture-returned">${escapeHtml(c.returnedText)}</span>`) : '',
  ].join('');
}
