/** Issue 27: MCP clients may run read-only tools without asking; only those that only read say so. */
import { describe, expect, it } from 'vitest';
import { agentToolDefs } from '../../src/mcp/tools.js';

describe('MCP tool annotations', () => {
  it('marks the tools that only read readOnlyHint:true and every other tool false', () => {
    const hints = Object.fromEntries(agentToolDefs().map((t) => [t.name, t.annotations?.readOnlyHint]));
    expect(Object.entries(hints).filter(([, v]) => v).map(([k]) => k).sort()).toEqual(['get_balance', 'list_activity', 'list_markets', 'quote_transfer']);
    for (const name of ['send_transfer', 'pay_bill', 'create_payment_link', 'create_market', 'stake_market']) expect(hints[name]).toBe(false);
    expect(agentToolDefs().find((t) => t.name === 'send_transfer')?.annotations?.destructiveHint).toBe(true);
  });
});
