/**
 * What the spend-policy door tests share (doors.test.ts, doors-proof.test.ts): a real service
 * with the Telegram bridge on a fake Bot API (webhook mode), merchants with a funded wallet and
 * their key's id, the person's policy PUT, an MCP SDK client and the Telegram webhook post.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund } from '../helpers/money.js';
import { startFakeBotApi, textUpdate, type ApiCall, type FakeBotApi, type TgUser } from '../bridges/telegram-fake.js';
import type { SpendPolicy } from '../../src/policies/policy-schemas.js';
import { Policies } from '../../src/policies/tables.js';

export const PASSWORD = 'correct horse battery';
const SECRET = 's3cret';

export interface PolicyWorld {
  svc: TestService;
  fake: FakeBotApi;
  merchant(name: string, usd?: string): Promise<Merchant & { keyId: string }>;
  /** The signed-in person replaces a policy (the account's, or `path` = `/keys/:id/policy`). */
  putPolicy(m: Merchant, policy: SpendPolicy, opts?: { path?: string; password?: string; key?: boolean }): ReturnType<typeof call>;
  mcpClient(key: string): Promise<Client>;
  /** A Telegram-only account has no password (docs/policies.md): its account policy is stored as the app would. */
  storePolicy(accountId: string, policy: SpendPolicy): Promise<unknown>;
  /** Posts a Telegram update to the webhook. */
  tgPost(update: object): Promise<Response>;
  /** Sends `text` as the user and waits for the bot's next message to them. */
  tgSay(user: TgUser, text: string): Promise<ApiCall>;
  stop(): Promise<void>;
}

export async function startPolicyWorld(): Promise<PolicyWorld> {
  const fake = await startFakeBotApi();
  const svc = await startTestService({
    AGENT_RATE_LIMIT: '1000/min',
    RECONCILE_INTERVAL: '1h',
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: fake.url,
    TELEGRAM_WEBHOOK_URL: 'https://example.test/api/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  });
  const tgPost = (u: object) =>
    fetch(`${svc.api}/telegram/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': SECRET }, body: JSON.stringify(u) });
  return {
    svc,
    fake,
    async merchant(name, usd = '200') {
      const m = await createMerchant(svc.api, name);
      await fund(svc, (await svc.deps.accounts.get(m.accountId))!, usd);
      const keys = await call(`${svc.api}/keys`, { cookie: m.cookie });
      return { ...m, keyId: keys.body.keys[0].id };
    },
    putPolicy: (m, policy, opts = {}) =>
      call(`${svc.api}${opts.path ?? '/policies'}`, {
        method: 'PUT',
        ...(opts.key ? { key: m.key } : { cookie: m.cookie }),
        body: { policy, password: opts.password ?? PASSWORD },
      }),
    async mcpClient(key) {
      const client = new Client({ name: 'assistant', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
      return client;
    },
    storePolicy: (accountId, policy) =>
      svc.deps.store.write(Policies, (t) => t.insert({ id: accountId, accountId, scope: 'account', policy, updatedAt: new Date().toISOString() })),
    tgPost,
    async tgSay(user, text) {
      const since = fake.calls.length;
      await tgPost(textUpdate(user, text));
      return fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= since && Number(c.body.chat_id) === user.id);
    },
    async stop() {
      await svc.stop({ removeData: true });
      await fake.close();
    },
  };
}
