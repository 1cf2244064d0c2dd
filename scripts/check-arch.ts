/**
 * The architecture check (issue 12, "Done means"; docs/architecture-check.md): reads every
 * TypeScript import under src/ with the TypeScript parser (static, `export … from`, dynamic
 * `import()`, type-only included: a type import is still a dependency of the design) and
 * reports each import that breaks a layering rule, naming the importing file, the imported
 * file or package and the line.
 *
 *   npm run check:arch     prints the violations and the known exceptions; exits 1 on a new one
 *
 * test/arch/architecture.unit.test.ts runs the same check in the unit project.
 *
 * dependency-cruiser would do this too, but its current releases need Node 22 and the project
 * runs on Node 20 (package.json engines); the TypeScript compiler is already a dependency.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { KNOWN_EXCEPTIONS } from './arch-exceptions.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The doors: where requests from outside come in, each with its own framework. src/x402 is not
 * a door: it is the x402 facilitator's domain logic (verify, settle, session requirements); its
 * HTTP parts are the routers src/api/x402.router.ts and src/api/x402-pay.router.ts, in the api door.
 */
export const DOORS = ['api', 'bridges', 'checkout', 'web', 'mcp'] as const;

/**
 * Folders of door-level code shared by the HTTP doors (auth, errors, the OpenAPI registry, the
 * rate-limit middleware) that are no door themselves: they may import express and its kin, any
 * door may import them, and they import no door and neither store nor chain. src/http is that
 * plumbing (issue 12 item 2).
 */
export const DOOR_SHARED: readonly string[] = ['http'];

/**
 * The top-level files of src/ are the composition root (src/main.ts, src/service.ts,
 * src/doors.ts): it builds the store, the chain, the domain and every door, so it may
 * import anything, and nothing may import it (that is a cycle through the root).
 */
export const ROOT_FOLDER = '(root)';

/**
 * Packages only a door may import (DESIGN.md 2, docs/architecture-check.md): the HTTP framework
 * and its middleware, the Telegram framework, the request logger and the model provider's SDK.
 */
export const DOOR_PACKAGES = ['express', 'express-rate-limit', 'helmet', 'pino-http', 'grammy', '@grammyjs/*', '@anthropic-ai/sdk'];

/**
 * The one place below the doors that may import a door package: the Claude engine is the
 * adapter between the agent's Engine port and the model provider, as src/chain is for viem.
 * DESIGN.md 2 forbids the SDK in *domain* modules; the agent's engine adapter is where it has
 * to be, loaded lazily (src/agent/index.ts) so a start without ANTHROPIC_API_KEY never loads it.
 */
export const PACKAGE_ADAPTERS: Readonly<Record<string, string>> = {
  'src/agent/claude-engine.ts': '@anthropic-ai/sdk',
};

/** Folders a door or the agent must reach only through the domain modules. */
export const LOW_FOLDERS = ['store', 'chain'] as const;

export type Rule = 'door-imports-door' | 'door-package-below-doors' | 'reaches-store-or-chain' | 'lib-imports-up' | 'folder-cycle' | 'file-cycle';

export interface Edge {
  from: string;
  /** A file under src/ (relative to the repo) or a package name. */
  to: string;
  line: number;
  typeOnly: boolean;
}

export interface Violation {
  rule: Rule;
  from: string;
  to: string;
  line: number;
  message: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // Browser code served as static files is not part of the server's import graph.
    if (entry.isDirectory()) {
      if (entry.name !== 'assets' && entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const rel = (abs: string) => path.relative(ROOT, abs).split(path.sep).join('/');

function resolveRelative(fromAbs: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromAbs), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, path.join(base, 'index.ts'), base];
  return candidates.find((c) => existsSync(c) && !c.endsWith(path.sep));
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every import of one file, resolved. Node built-ins are left out. */
export function importsOf(abs: string): Edge[] {
  const text = readFileSync(abs, 'utf8');
  const sf = ts.createSourceFile(abs, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: string, node: ts.Node, typeOnly: boolean) => {
    if (spec.startsWith('node:')) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (spec.startsWith('.')) {
      const target = resolveRelative(abs, spec);
      edges.push({ from: rel(abs), to: target ? rel(target) : `${rel(path.resolve(path.dirname(abs), spec))} (unresolved)`, line, typeOnly });
    } else {
      edges.push({ from: rel(abs), to: packageName(spec), line, typeOnly });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const allTypes =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, node, allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      add(node.arguments[0].text, node, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, node, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** The import graph of src/. */
export function importGraph(srcDir = path.join(ROOT, 'src')): Edge[] {
  return sourceFiles(srcDir).sort().flatMap(importsOf);
}

/** `src/agent/local/x.ts` -> `agent`; a top-level file of src/ -> the composition root. */
export function folderOf(file: string): string | undefined {
  const m = /^src\/(.+)$/.exec(file);
  if (!m) return undefined;
  const parts = m[1]!.split('/');
  return parts.length === 1 ? ROOT_FOLDER : parts[0];
}

const isDoor = (folder: string | undefined) => folder !== undefined && (DOORS as readonly string[]).includes(folder);

function isDoorPackage(pkg: string): boolean {
  return DOOR_PACKAGES.some((p) => (p.endsWith('/*') ? pkg.startsWith(p.slice(0, -1)) : pkg === p));
}

/** Strongly connected components (Tarjan) of the graph `node` draws from the imports, each with more than one node. */
function cycles(edges: Edge[], node: (file: string) => string | undefined): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = node(e.from);
    const b = node(e.to);
    if (!a || !b || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)!.add(b);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out;
}

/** Every import that breaks a rule, in file order. */
export function violations(edges: Edge[] = importGraph(), opts: { doorShared?: readonly string[] } = {}): Violation[] {
  const shared = new Set(opts.doorShared ?? DOOR_SHARED);
  const isShared = (folder: string | undefined) => folder !== undefined && shared.has(folder);
  const out: Violation[] = [];
  for (const e of edges) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === ROOT_FOLDER) continue;
    if (isDoor(from) && isDoor(to) && from !== to) {
      out.push({ rule: 'door-imports-door', ...pick(e), message: `door ${from} imports door ${to}` });
    }
    if (isShared(from) && isDoor(to)) {
      out.push({ rule: 'door-imports-door', ...pick(e), message: `${from}, shared by the doors, imports door ${to}` });
    }
    if (to === undefined && !isDoor(from) && !isShared(from) && isDoorPackage(e.to) && PACKAGE_ADAPTERS[e.from] !== e.to) {
      out.push({ rule: 'door-package-below-doors', ...pick(e), message: `${from} is below the doors and imports ${e.to}` });
    }
    if ((isDoor(from) || isShared(from) || from === 'agent') && (LOW_FOLDERS as readonly string[]).includes(to ?? '')) {
      out.push({ rule: 'reaches-store-or-chain', ...pick(e), message: `${from} reaches past the domain into ${to}` });
    }
    // src/lib holds helpers every layer uses (ids, results, money and phone text): it imports no other folder.
    if (from === 'lib' && to !== undefined && to !== 'lib') {
      out.push({ rule: 'lib-imports-up', ...pick(e), message: `lib imports ${to}` });
    }
  }
  // A cycle between folders is reported once per import that closes it: every import from one
  // folder of the cycle into another (the list shows which files to move to break it).
  for (const cycle of cycles(edges, folderOf)) {
    const members = new Set(cycle);
    for (const e of edges) {
      const a = folderOf(e.from);
      const b = folderOf(e.to);
      if (a && b && a !== b && members.has(a) && members.has(b)) {
        out.push({ rule: 'folder-cycle', ...pick(e), message: `cycle between folders ${cycle.join(', ')}: ${a} -> ${b}` });
      }
    }
  }
  // Likewise between files (type-only imports included: a type cycle still ties the files together).
  const fileOf = (f: string) => (f.startsWith('src/') && f.endsWith('.ts') ? f : undefined);
  for (const cycle of cycles(edges, fileOf)) {
    const members = new Set(cycle);
    for (const e of edges) {
      if (e.from !== e.to && members.has(e.from) && members.has(e.to)) {
        out.push({ rule: 'file-cycle', ...pick(e), message: `cycle between files ${cycle.join(', ')}` });
      }
    }
  }
  return out;
}

function pick(e: Edge) {
  return { from: e.from, to: e.to, line: e.line };
}

/** A known exception: the rule, the importing file and the imported file or package. */
export type Exception = readonly [Rule, string, string];

export const key = (v: Pick<Violation, 'rule' | 'from' | 'to'>) => `${v.rule} ${v.from} -> ${v.to}`;

/**
 * Splits the violations into new ones (not in `known`) and the exceptions that no longer occur
 * (stale: to be deleted from the list, so it can only shrink).
 */
export function compare(found: Violation[], known: readonly Exception[]): { fresh: Violation[]; stale: string[] } {
  const knownKeys = new Set(known.map(([rule, from, to]) => key({ rule, from, to })));
  const foundKeys = new Set(found.map(key));
  return { fresh: found.filter((v) => !knownKeys.has(key(v))), stale: [...knownKeys].filter((k) => !foundKeys.has(k)) };
}

export function formatViolation(v: Violation): string {
  return `${v.rule}: ${v.from}:${v.line} -> ${v.to} (${v.message})`;
}

function main(): void {
  const found = violations();
  const { fresh, stale } = compare(found, KNOWN_EXCEPTIONS);
  const knownKeys = new Set(KNOWN_EXCEPTIONS.map(([rule, from, to]) => key({ rule, from, to })));
  const tolerated = found.filter((v) => knownKeys.has(key(v)));
  if (tolerated.length) {
    console.log(`Known exceptions still present (${tolerated.length}; scripts/arch-exceptions.ts):`);
    for (const v of tolerated) console.log(`  ${formatViolation(v)}`);
  }
  if (stale.length) {
    console.log(`Exceptions that no longer occur (delete them from scripts/arch-exceptions.ts):`);
    for (const k of stale) console.log(`  ${k}`);
  }
  if (fresh.length) {
    console.log(`Architecture violations (${fresh.length}):`);
    for (const v of fresh) console.log(`  ${formatViolation(v)}`);
  }
  if (!fresh.length && !stale.length) console.log('Architecture check: no new violations.');
  process.exitCode = fresh.length || stale.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
