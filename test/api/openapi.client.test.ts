import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, startTestService, type TestService } from '../helpers/service.js';

/**
 * A merchant generates a typed client from our published document with the field's tools at
 * their defaults (openapi-typescript + openapi-fetch) and writes the smallest create there is.
 */
const dir = path.resolve('.tmp', `openapi-client-${process.pid}`);
let svc: TestService;
let schemaTs: string;

const MINIMAL_CREATE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
const client = createClient<paths>({ baseUrl: 'http://localhost:3000/api' });
export async function minimalCreate(): Promise<string | undefined> {
  const { data } = await client.POST('/v1/payments', {
    body: { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks' },
  });
  // The 201 body is typed: a wrong field name here would not compile either.
  return data?.checkout_url;
}
`;

/** Type-checks the files in one program (one load of the generated types); diagnostics per file. */
function compile(files: Record<string, string>): Record<string, string[]> {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const program = ts.createProgram(Object.keys(files).map((f) => path.join(dir, f)), options);
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(files).map((f) => [f, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? path.basename(d.file.fileName) : 'global';
    (out[file] ??= []).push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return out;
}

const VARIANTS = {
  'client.ts': MINIMAL_CREATE,
  'missing.ts': MINIMAL_CREATE.replace('amount: 25, ', ''),
  'text.ts': MINIMAL_CREATE.replace('amount: 25,', "amount: '25',"),
};
let diagnostics: Record<string, string[]>;

beforeAll(async () => {
  svc = await startTestService();
  const doc = await (await fetch(`${svc.api}/openapi.json`)).json();
  schemaTs = astToString(await openapiTS(doc));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(path.join(dir, 'schema.d.ts'), schemaTs);
  for (const [file, text] of Object.entries(VARIANTS)) await writeFile(path.join(dir, file), text);
  diagnostics = compile(VARIANTS);
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
  await rm(dir, { recursive: true, force: true });
});

describe('a typed client generated from /api/openapi.json', () => {
  it('compiles the minimal three-field create (fields with a default stay optional)', () => {
    expect(diagnostics['client.ts']).toEqual([]);
    expect(diagnostics.global ?? []).toEqual([]);
  });

  it('is not a rubber stamp: a create without amount, or with amount as text, does not compile', () => {
    expect(diagnostics['missing.ts']!.join('\n')).toMatch(/amount/);
    expect(diagnostics['text.ts']!.join('\n')).toMatch(/string.*number/);
  });

  it('talks to the running service: the same minimal create answers 201 with a checkout_url', async () => {
    const merchant = await createMerchant(svc.api);
    const client = createClient<any>({ baseUrl: svc.api, headers: { Authorization: `Bearer ${merchant.key}` } });
    const { data, response } = await client.POST('/v1/payments', {
      body: { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks' },
    });
    expect(response.status).toBe(201);
    expect(data.checkout_url).toMatch(/\/pay\/pay_/);
    expect(data.expires_in_minutes).toBe(60);
  });
});
