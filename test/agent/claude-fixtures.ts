/**
 * Fixtures for the Claude engine tests (vitest `test.extend`): an Agent over a temporary store
 * whose engine talks to a fake Anthropic Messages API, and two ways to fake that API.
 *
 * - `nockClaudeTest`: nock intercepts https://api.anthropic.com (no other network while a test
 *   runs); `anthropic.script([...])` answers each request in turn and keeps the request bodies.
 * - `loopbackClaudeTest`: a real HTTP server on 127.0.0.1, port 0 (the SDK reaches it through
 *   its base URL, as ANTHROPIC_BASE_URL does), able to delay an answer past a deadline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { test } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ClaudeEngine } from '../../src/agent/claude-engine.js';
import { fakeAccounts, silentLogger, tempStore, type fakeHandlers } from './fakes.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';

export const ALICE = 'acct_alice0000000000000000';
export const MODEL = 'claude-test-model';
export const ANTHROPIC_BASE = 'https://api.anthropic.com';

type Block = Record<string, unknown>;

/** A Messages API response. */
export const message = (content: Block[], stop_reason: 'tool_use' | 'end_turn') => ({
  id: `msg_${Math.random().toString(36).slice(2)}`,
  type: 'message',
  role: 'assistant',
  model: MODEL,
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 20 },
});
export const text = (t: string) => ({ type: 'text', text: t });
export const toolUse = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

type FakeHandlers = ReturnType<typeof fakeHandlers>;
/** Where the engine's Messages API is, and the engine settings a test may change. */
type EngineOptions = { baseURL: string; maxRetries?: number; turnTimeoutMs?: number };

/** The base: `store` (a temporary lowdb store, closed after the test) and `claudeAgent`. */
export const claudeTest = test
  .extend('store', async ({}, { onCleanup }) => {
    const store = await tempStore();
    onCleanup(() => store.close());
    return store;
  })
  .extend('claudeAgent', async ({ store }) => {
    /** An Agent running `fake`'s handlers, its Claude engine pointed at `engine.baseURL`. */
    return (fake: FakeHandlers, { baseURL, maxRetries = 2, turnTimeoutMs }: EngineOptions) =>
      new Agent({
        engine: new ClaudeEngine({
          apiKey: 'sk-ant-test',
          model: MODEL,
          baseURL,
          maxRetries,
          timeout: 5_000,
          ...(turnTimeoutMs !== undefined ? { turnTimeoutMs } : {}),
          logger: silentLogger(),
        }),
        handlers: fake.handlers,
        actions: new PendingActionsStore(store),
        logger: silentLogger(),
        accounts: fakeAccounts,
      });
  });

export interface ScriptedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** nock answers api.anthropic.com; every test of the file gets it (net connect off, cleaned after). */
export const nockClaudeTest = claudeTest.extend('anthropic', { auto: true }, async ({}, { onCleanup }) => {
  nock.disableNetConnect();
  onCleanup(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  return {
    baseURL: ANTHROPIC_BASE,
    /** Each reply answers the next request; request bodies are kept. */
    script(replies: ScriptedReply[]) {
      const bodies: any[] = [];
      const scope = nock(ANTHROPIC_BASE);
      for (const r of replies) {
        scope
          .post('/v1/messages', (body) => {
            bodies.push(body);
            return true;
          })
          .reply(r.status, r.body as nock.Body, { 'content-type': 'application/json', ...r.headers });
      }
      return { scope, bodies };
    },
  };
});

export interface LoopbackReply {
  body: unknown;
  delayMs?: number;
}

export interface LoopbackApi {
  baseURL: string;
  bodies: any[];
}

/** `messagesApi(script)` starts a fake Messages API on loopback, closed after the test. */
export const loopbackClaudeTest = claudeTest.extend('messagesApi', async ({}, { onCleanup }) => {
  const servers: http.Server[] = [];
  onCleanup(async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });
  return async (script: LoopbackReply[]): Promise<LoopbackApi> => {
    const bodies: any[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/messages') {
          res.writeHead(404).end();
          return;
        }
        bodies.push(JSON.parse(raw));
        const next = script.shift();
        if (!next) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'script exhausted' } }));
          return;
        }
        const send = () => {
          if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
        };
        if (next.delayMs) setTimeout(send, next.delayMs).unref();
        else send();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { baseURL: `http://127.0.0.1:${port}`, bodies };
  };
});
