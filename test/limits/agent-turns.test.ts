import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentRateLimit, tooManyTurnsReply } from '../../src/limits/agent-turns.js';
import { agentTurnsMiddleware } from '../../src/http/rate-limit.js';

describe('AgentRateLimit (the per-account turn counter)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('allows `limit` turns per account in a fixed window, counts refusals, and starts over after the window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const rl = new AgentRateLimit({ limit: 2, windowMs: 60_000 });
    try {
      expect(await rl.take('a')).toMatchObject({ ok: true, used: 1, remaining: 1 });
      expect(await rl.take('a')).toMatchObject({ ok: true, used: 2, remaining: 0 });
      expect(await rl.take('a')).toMatchObject({ ok: false, used: 3, retryAfterSeconds: 60 });
      // Another account has its own count.
      expect(await rl.take('b')).toMatchObject({ ok: true, used: 1 });
      vi.setSystemTime(new Date('2026-01-01T00:00:45Z'));
      expect(await rl.take('a')).toMatchObject({ ok: false, retryAfterSeconds: 15 });
      vi.setSystemTime(new Date('2026-01-01T00:01:00Z'));
      expect(await rl.take('a')).toMatchObject({ ok: true, used: 1 });
      // The HTTP middleware reads the same store under the same key.
      expect((await rl.store.get(AgentRateLimit.key('a')))?.totalHits).toBe(1);
    } finally {
      rl.close();
    }
  });

  it('builds one express middleware per limiter, so every HTTP door shares it', () => {
    const rl = new AgentRateLimit({ limit: 2, windowMs: 60_000 });
    try {
      const a = agentTurnsMiddleware(rl, () => 'x');
      expect(agentTurnsMiddleware(rl, () => 'x')).toBe(a);
    } finally {
      rl.close();
    }
  });

  it('words the refusal the same on every door', () => {
    expect(tooManyTurnsReply(12)).toBe('Too many messages. Please wait 12 seconds and try again.');
    expect(tooManyTurnsReply()).toBe('Too many messages. Please wait a moment and try again.');
  });
});
