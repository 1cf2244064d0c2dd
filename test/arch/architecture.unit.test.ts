import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_EXCEPTIONS } from '../../scripts/arch-exceptions.js';
import { ROOT, compare, formatViolation, importsOf, violations, type Edge } from '../../scripts/check-arch.js';

/**
 * The layering rules of DESIGN.md 2 and issue 12, checked on the real import graph of src/
 * (scripts/check-arch.ts, also `npm run check:arch`; docs/architecture-check.md):
 *
 * - no door (src/api, src/bridges, src/checkout, src/web, src/mcp) imports another door, and
 *   src/http (the HTTP doors' shared plumbing, DOOR_SHARED) imports none;
 *   src/x402 is the facilitator's domain logic, its HTTP parts are routers in src/api;
 * - nothing outside the doors imports express (or its middleware), grammY, pino-http or the
 *   Anthropic SDK, except the Claude engine adapter src/agent/claude-engine.ts for the SDK;
 * - no door and no agent module imports src/store or src/chain;
 * - src/lib imports no other folder of src/ (it is the bottom: ids, results, money and phone text);
 * - no import cycle between the folders of src/ (the top-level files, the composition root,
 *   may import anything and are imported by nothing), nor between files (type imports count).
 *
 * Today's violations are listed by file pair in scripts/arch-exceptions.ts; the list can only
 * shrink.
 */
describe('architecture', () => {
  const found = violations();

  it('has no violation outside the known exceptions, and every known exception still occurs', () => {
    const { fresh, stale } = compare(found, KNOWN_EXCEPTIONS);
    expect(fresh.map(formatViolation), 'new violations').toEqual([]);
    expect(stale, 'exceptions that no longer occur: delete them from scripts/arch-exceptions.ts').toEqual([]);
  });

  it('src/webhooks/outbox.ts and webhook-schemas.ts no longer import each other', () => {
    const cycle = found.filter((v) => v.rule === 'file-cycle' && v.from.startsWith('src/webhooks/'));
    expect(cycle).toEqual([]);
  });

  it('has no import cycle between folders at all', () => {
    expect(found.filter((v) => v.rule === 'folder-cycle').map(formatViolation)).toEqual([]);
  });

  it('reads static, re-exported, dynamic and type-only imports', () => {
    const agentIndex = importsOf(path.join(ROOT, 'src/agent/index.ts'));
    expect(agentIndex).toContainEqual(expect.objectContaining({ to: 'src/agent/claude-engine.ts', typeOnly: false })); // import('./claude-engine.js')
    expect(agentIndex).toContainEqual(expect.objectContaining({ to: 'src/agent/agent.ts' })); // export { … } from
    expect(agentIndex).toContainEqual(expect.objectContaining({ to: 'pino', typeOnly: true }));
  });
});

describe('the rules (synthetic graphs)', () => {
  const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, line: 1, typeOnly });
  const rules = (edges: Edge[]) => violations(edges).map((v) => `${v.rule} ${v.from} -> ${v.to}`);

  it('a door importing another door', () => {
    expect(rules([edge('src/web/router.ts', 'src/api/auth.ts')])).toEqual(['door-imports-door src/web/router.ts -> src/api/auth.ts']);
    expect(rules([edge('src/api/app.ts', 'src/api/auth.ts')])).toEqual([]);
  });

  it('a folder shared by the doors (DOOR_SHARED) may use express and be imported by doors, but imports no door', () => {
    const withHttp = (edges: Edge[]) => violations(edges, { doorShared: ['http'] }).map((v) => `${v.rule} ${v.from} -> ${v.to}`);
    expect(withHttp([edge('src/http/errors.ts', 'express'), edge('src/api/app.ts', 'src/http/errors.ts'), edge('src/web/router.ts', 'src/http/auth.ts')])).toEqual([]);
    expect(withHttp([edge('src/http/auth.ts', 'src/api/deps.ts'), edge('src/http/auth.ts', 'src/store/index.ts')])).toEqual([
      'door-imports-door src/http/auth.ts -> src/api/deps.ts',
      'reaches-store-or-chain src/http/auth.ts -> src/store/index.ts',
    ]);
    // Not named shared, the same folder is below the doors.
    expect(violations([edge('src/http/errors.ts', 'express')], { doorShared: [] }).map((v) => v.rule)).toEqual(['door-package-below-doors']);
    expect(rules([edge('src/http/errors.ts', 'express')])).toEqual([]); // src/http is DOOR_SHARED
  });

  it('a door package below the doors, with the Claude engine adapter the one exception for the SDK', () => {
    expect(rules([edge('src/payments/payments.ts', 'express', true)])).toEqual(['door-package-below-doors src/payments/payments.ts -> express']);
    expect(rules([edge('src/webhooks/x.ts', '@grammyjs/runner')])).toEqual(['door-package-below-doors src/webhooks/x.ts -> @grammyjs/runner']);
    expect(rules([edge('src/agent/claude-engine.ts', '@anthropic-ai/sdk')])).toEqual([]);
    expect(rules([edge('src/agent/claude-engine.ts', 'express')])).toEqual(['door-package-below-doors src/agent/claude-engine.ts -> express']);
    expect(rules([edge('src/agent/tool-calls.ts', '@anthropic-ai/sdk')])).toEqual(['door-package-below-doors src/agent/tool-calls.ts -> @anthropic-ai/sdk']);
    expect(rules([edge('src/bridges/telegram/bot.ts', 'grammy'), edge('src/api/app.ts', 'pino-http')])).toEqual([]);
  });

  it('a door or the agent reaching into the store or the chain; the domain and the root may', () => {
    expect(rules([edge('src/agent/x.ts', 'src/store/index.ts', true), edge('src/mcp/x.ts', 'src/chain/relay.ts')])).toEqual([
      'reaches-store-or-chain src/agent/x.ts -> src/store/index.ts',
      'reaches-store-or-chain src/mcp/x.ts -> src/chain/relay.ts',
    ]);
    expect(rules([edge('src/payments/payments.ts', 'src/store/index.ts'), edge('src/service.ts', 'src/chain/chain.ts')])).toEqual([]);
  });

  it('a cycle between files, type-only imports included', () => {
    expect(rules([edge('src/webhooks/outbox.ts', 'src/webhooks/webhook-schemas.ts', true), edge('src/webhooks/webhook-schemas.ts', 'src/webhooks/outbox.ts')])).toEqual([
      'file-cycle src/webhooks/outbox.ts -> src/webhooks/webhook-schemas.ts',
      'file-cycle src/webhooks/webhook-schemas.ts -> src/webhooks/outbox.ts',
    ]);
    expect(rules([edge('src/webhooks/outbox.ts', 'src/webhooks/webhook-schemas.ts', true)])).toEqual([]);
  });

  it('src/lib importing any other folder', () => {
    expect(rules([edge('src/lib/usdc.ts', 'src/fx/rates.ts')])).toEqual(['lib-imports-up src/lib/usdc.ts -> src/fx/rates.ts']);
    expect(rules([edge('src/lib/money.ts', 'src/lib/results.ts'), edge('src/lib/money.ts', 'viem')])).toEqual([]);
  });

  it('a cycle between folders, reported on every import that closes it', () => {
    expect(
      rules([edge('src/refunds/a.ts', 'src/webhooks/b.ts', true), edge('src/webhooks/c.ts', 'src/payments/d.ts'), edge('src/payments/e.ts', 'src/refunds/f.ts')]),
    ).toEqual([
      'folder-cycle src/refunds/a.ts -> src/webhooks/b.ts',
      'folder-cycle src/webhooks/c.ts -> src/payments/d.ts',
      'folder-cycle src/payments/e.ts -> src/refunds/f.ts',
    ]);
    expect(rules([edge('src/refunds/a.ts', 'src/webhooks/b.ts'), edge('src/webhooks/c.ts', 'src/payments/d.ts')])).toEqual([]);
    expect(rules([edge('src/payments/x.ts', 'src/service.ts'), edge('src/service.ts', 'src/payments/y.ts')])).toEqual([
      'folder-cycle src/payments/x.ts -> src/service.ts',
      'folder-cycle src/service.ts -> src/payments/y.ts',
    ]);
  });
});
