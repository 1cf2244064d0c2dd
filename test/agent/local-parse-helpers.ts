import { parseMessage, type ParseContext, type ParseResult } from '../../src/agent/local/index.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';

/** The local parser as the corridor-word tests call it: a fixed clock, UTC, the real biller catalogue. */
const billers = billerAliasIndex(loadBillerCatalogue());
const ctx = (localCurrency: string): ParseContext => ({ now: new Date('2026-11-28T10:00:00Z'), localCurrency, timeZone: 'UTC', billers });
export const parse = (cur: string, text: string): ParseResult => parseMessage(text, ctx(cur));

/** The call, acted at once (no hold): name and input. */
export function atOnce(r: ParseResult): { name: string; input: Record<string, unknown> } | undefined {
  return r.kind === 'tool' && !r.hold ? { name: r.call.name, input: r.call.input as Record<string, unknown> } : undefined;
}

/** The tool the parser calls (held or not), else the result's kind. */
export const nameOf = (cur: string, text: string): string => {
  const r = parse(cur, text);
  return r.kind === 'tool' ? r.call.name : r.kind;
};

/** Why nothing was done, when nothing was. */
export const reason = (cur: string, text: string): string | undefined => {
  const r = parse(cur, text);
  return r.kind === 'none' ? r.reason : undefined;
};
