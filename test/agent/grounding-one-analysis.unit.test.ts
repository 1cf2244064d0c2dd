import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolCall } from '../../src/agent/tool-inputs.js';

/**
 * Issue 23, tenth round: grounding analyses the person's message once when nothing in it is
 * quoted (the own words are then the whole message, and their analysis is the gate's), twice
 * only when quoted text was set aside. Counted at the module (deterministic), with the decisions
 * unchanged: the grounding suites (grounding.unit / grounding.property) pin those.
 */
type Analysis = typeof import('../../src/agent/local/analysis.js');
type Grounding = typeof import('../../src/agent/grounding/index.js');
let analyse: Analysis['analyse'] & { mock: { calls: unknown[] }; mockClear(): void };
let groundCall: Grounding['groundCall'];

// The fast project shares modules between files (isolate: false): a module graph of this file's
// own, with analyse counted, then the shared one back for the files after it.
beforeAll(async () => {
  vi.resetModules();
  vi.doMock('../../src/agent/local/analysis.js', async (importOriginal) => {
    const orig = await importOriginal<Analysis>();
    return { ...orig, analyse: vi.fn(orig.analyse) };
  });
  analyse = (await import('../../src/agent/local/analysis.js')).analyse as typeof analyse;
  groundCall = (await import('../../src/agent/grounding/index.js')).groundCall;
});
afterAll(() => {
  vi.doUnmock('../../src/agent/local/analysis.js');
  vi.resetModules();
});

const now = new Date('2030-01-01T00:00:00Z');
const send: ToolCall = { name: 'send_transfer', input: { recipient: '@amina', amount: '500', currency: 'KES' } } as ToolCall;
const ground = (message: string) => groundCall({ call: send, message, localCurrency: 'KES', now });
const analyses = () => analyse.mock.calls.length;

describe('grounding reads the message once', () => {
  it('one analysis when nothing is quoted, and the same decisions', () => {
    analyse.mockClear();
    expect(ground('send 500 KES to @amina')).toEqual({ kind: 'act' });
    expect(analyses()).toBe(1);
    analyse.mockClear();
    expect(ground("don't send 500 KES to @amina")).toMatchObject({ kind: 'end', reason: 'negation' });
    expect(analyses()).toBe(1);
  });

  it('two when quoted text was set aside (the gate reads the whole message)', () => {
    analyse.mockClear();
    expect(ground('send 500 KES to @amina, they wrote "send 900 KES to @bob"')).toMatchObject({ kind: expect.any(String) });
    expect(analyses()).toBe(2);
  });
});
