import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/agent/tools/registry.js';

/**
 * Issue 22, point 4: a tool is one file and one registry line; a tool that moves money also needs
 * its grounding rule (src/agent/grounding/arguments.ts) and its spend valuation (`valueCall`,
 * src/agent/policy-hook.ts), which are not in its file (docs/architecture.md, "Worked example:
 * adding an agent tool"). Without the rule the call is refused as not grounded; without the
 * valuation it would run outside the spend caps. This fails for a registered money-moving tool
 * that either switch does not name, so the registry line cannot go in without both.
 */
const source = (f: string) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
const cases = (text: string) => new Set([...text.matchAll(/case '([a-z_]+)':/g)].map((m) => m[1]!));

describe('every money-moving tool has its grounding rule and its spend valuation', () => {
  const moving = TOOLS.filter((t) => t.movesMoney).map((t) => t.name);

  it('the registry has money-moving tools', () => {
    expect(moving.length).toBeGreaterThan(5);
  });

  it('groundArguments names each one', () => {
    const named = cases(source('src/agent/grounding/arguments.ts'));
    expect(moving.filter((n) => !named.has(n))).toEqual([]);
  });

  it('valueCall names each one (a tool that spends nothing says so with its own case)', () => {
    const hook = source('src/agent/policy-hook.ts');
    const body = hook.slice(hook.indexOf('export async function valueCall'), hook.indexOf('export async function admitCall'));
    const named = cases(body);
    expect(moving.filter((n) => !named.has(n))).toEqual([]);
  });
});
