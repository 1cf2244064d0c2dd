import { describe, expect, it, vi } from 'vitest';
import * as analysis from '../../src/agent/local/analysis.js';
import { groundCall } from '../../src/agent/grounding/index.js';
import type { ToolCall } from '../../src/agent/tool-inputs.js';

/**
 * Issue 23, tenth round: grounding analyses the person's message once when nothing in it is
 * quoted (the own words are then the whole message, and their analysis is the gate's), twice
 * only when quoted text was set aside. Counted at the module (deterministic), with the decisions
 * unchanged: the grounding suites (grounding.unit / grounding.property) pin those.
 */
vi.mock('../../src/agent/local/analysis.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/agent/local/analysis.js')>();
  return { ...orig, analyse: vi.fn(orig.analyse) };
});

const now = new Date('2030-01-01T00:00:00Z');
const send: ToolCall = { name: 'send_transfer', input: { recipient: '@amina', amount: '500', currency: 'KES' } } as ToolCall;
const ground = (message: string) => groundCall({ call: send, message, localCurrency: 'KES', now });
const analyses = () => vi.mocked(analysis.analyse).mock.calls.length;

describe('grounding reads the message once', () => {
  it('one analysis when nothing is quoted, and the same decisions', () => {
    vi.mocked(analysis.analyse).mockClear();
    expect(ground('send 500 KES to @amina')).toEqual({ kind: 'act' });
    expect(analyses()).toBe(1);
    vi.mocked(analysis.analyse).mockClear();
    expect(ground("don't send 500 KES to @amina")).toMatchObject({ kind: 'end', reason: 'negation' });
    expect(analyses()).toBe(1);
  });

  it('two when quoted text was set aside (the gate reads the whole message)', () => {
    vi.mocked(analysis.analyse).mockClear();
    expect(ground('send 500 KES to @amina, they wrote "send 900 KES to @bob"')).toMatchObject({ kind: expect.any(String) });
    expect(analyses()).toBe(2);
  });
});
