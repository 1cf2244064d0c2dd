/**
 * `npm run mcp` takes either mode's secret key from the environment (docs/test-mode.md): an
 * `sk_test_` key gives the assistant test mode, as over HTTP; anything else stops the start.
 */
import { describe, expect, it } from 'vitest';
import { StdioEnv } from '../../src/mcp/stdio.js';

describe('StdioEnv', () => {
  it('accepts a live or a test secret key, nothing else', () => {
    for (const key of ['sk_live_abc123', 'sk_test_abc123']) expect(StdioEnv.safeParse({ STABLEPAY_API_KEY: key }).success, key).toBe(true);
    for (const key of ['pk_live_abc', 'sk_live_', 'sk_other_abc', 'whsec_abc']) expect(StdioEnv.safeParse({ STABLEPAY_API_KEY: key }).success, key).toBe(false);
    expect(StdioEnv.safeParse({}).success).toBe(false);
  });
});
