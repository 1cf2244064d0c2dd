/** The MCP door's Host/Origin guard on its own: in production only the public URL is ours. */
import { describe, expect, it } from 'vitest';
import { mcpHostGuard } from '../../src/mcp/host-guard.js';

function verdict(opts: { publicUrl: string; allowLocalhost: boolean }, host: string | undefined, origin?: string): 'pass' | number {
  let status = 0;
  let passed = false;
  const res = { status: (s: number) => ((status = s), { json: () => undefined }) };
  const req = { headers: { host }, get: (h: string) => (h === 'origin' ? origin : undefined) };
  mcpHostGuard(opts)(req as never, res as never, () => (passed = true));
  return passed ? 'pass' : status;
}

describe('mcpHostGuard', () => {
  const prod = { publicUrl: 'https://pay.example.com', allowLocalhost: false };
  const dev = { publicUrl: 'http://localhost:3000', allowLocalhost: true };

  it('in production accepts only the public hostname and origin', () => {
    expect(verdict(prod, 'pay.example.com')).toBe('pass');
    expect(verdict(prod, 'pay.example.com', 'https://pay.example.com')).toBe('pass');
    expect(verdict(prod, 'localhost:3000')).toBe(403);
    expect(verdict(prod, '127.0.0.1')).toBe(403);
    expect(verdict(prod, 'evil.example.com')).toBe(403);
    expect(verdict(prod, undefined)).toBe(403);
    expect(verdict(prod, 'pay.example.com', 'http://localhost:3000')).toBe(403);
    // Same hostname, other scheme: another origin.
    expect(verdict(prod, 'pay.example.com', 'http://pay.example.com')).toBe(403);
    expect(verdict(prod, 'pay.example.com', 'null')).toBe(403);
  });

  it('in development also accepts the machine itself on any port, never another name', () => {
    expect(verdict(dev, 'localhost:3000')).toBe('pass');
    expect(verdict(dev, '127.0.0.1:8080', 'http://127.0.0.1:5173')).toBe('pass');
    expect(verdict(dev, '[::1]:3000', 'http://[::1]:3000')).toBe('pass');
    expect(verdict(dev, 'evil.example.com:3000')).toBe(403);
    expect(verdict(dev, 'localhost:3000', 'http://evil.example.com')).toBe(403);
    expect(verdict(dev, 'localhost.evil.example.com')).toBe(403);
  });
});
