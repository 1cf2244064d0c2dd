import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * npm scripts (`npm start`, `npm test`) put node_modules/.bin first on PATH, so a dependency that
 * ships a `node` binary would run the service and every test on that Node instead of the
 * machine's Node 20 (package.json engines). The MCP conformance suite's Node 22 lives under
 * tools/node22, outside the project's own dependencies (docs/mcp.md).
 */
describe('the Node that npm scripts run', () => {
  it('no dependency shadows the machine node (node_modules/.bin/node is absent)', () => {
    expect(existsSync(path.resolve('node_modules/.bin/node'))).toBe(false);
  });
});
