/**
 * Spend policies as DESIGN section 11 fixes them (h17policy): the flat body and answer of
 * `PUT/GET /api/policies` and `/api/keys/:id/policy` (JSON numbers in USD, `null` = no rule, a PUT
 * replaces the whole policy, `allowed_actions` with `market`), the refusal reasons of every rule
 * (`policy_per_transaction`, `policy_daily`, `policy_recipient`, `policy_action`, `policy_breaker`
 * with 429 and Retry-After), the held `approval_required`, and `POLICY_BREAKER`. Real HTTP on a real
 * service (embedded anvil, real transfers); the `pg` project runs it again on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';

const PASSWORD = 'correct horse battery';
let svc: TestService;

beforeAll(async () => {
  // A breaker of 4 refusals in 10 minutes pausing the key 15 minutes (DESIGN's default is 5/10m/15m).
  svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h', POLICY_BREAKER: '4/10m/15m' });
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_dc' });
  const mallory = await newAccount(svc, { name: 'Mallory', country: 'NG' });
  await svc.deps.accounts.update(mallory.id, { telegramUsername: 'mallory_dc', phone: '+2348030000077' });
});
afterAll(() => svc?.stop({ removeData: true }));

async function merchant(name: string, usd = '300'): Promise<Merchant & { keyId: string }> {
  const m = await createMerchant(svc.api, name);
  await fund(svc, (await svc.deps.accounts.get(m.accountId))!, usd);
  const keys = await call(`${svc.api}/keys`, { cookie: m.cookie });
  return { ...m, keyId: keys.body.keys[0].id };
}
const put = (m: Merchant, body: object, path = '/policies', auth: 'cookie' | 'key' | 'none' = 'cookie') =>
  call(`${svc.api}${path}`, { method: 'PUT', ...(auth === 'cookie' ? { cookie: m.cookie } : auth === 'key' ? { key: m.key } : {}), body: { password: PASSWORD, ...body } });
const settle = (m: { key: string }, message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message } });
const NO_RULE = {
  per_transaction_usd: null,
  daily_usd: null,
  weekly_usd: null,
  monthly_usd: null,
  approval_threshold_usd: null,
  allow_recipients: null,
  block_recipients: null,
  allowed_actions: null,
};

describe('PUT/GET /api/policies and /api/keys/:id/policy take and answer DESIGN fields', () => {
  it('the flat body with JSON numbers is accepted and read back as numbers; an omitted field is null', async () => {
    const m = await merchant('Flat Shop');
    const body = {
      per_transaction_usd: 50,
      daily_usd: 200,
      weekly_usd: 500.5,
      monthly_usd: 1000,
      approval_threshold_usd: 30.125,
      allow_recipients: ['@amina_dc'],
      block_recipients: ['+2348030000077'],
      allowed_actions: ['transfer', 'market'],
    };
    const set = await put(m, body);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.policy).toMatchObject(body);
    // The stored form keeps decimal text (never a float), for the editor.
    expect(set.body.policy.policy).toMatchObject({ usd: { per_transaction: '50', weekly: '500.5' }, approval_threshold_usd: '30.125', allowed_actions: ['transfer', 'market_stake'] });
    const got = await call(`${svc.api}/policies`, { cookie: m.cookie });
    expect(got.body.policy).toMatchObject(body);
    expect((await call(`${svc.api}/policies`, { key: m.key })).body.policy).toMatchObject(body);

    // PUT replaces the whole policy: what is omitted is null (no rule).
    const second = await put(m, { daily_usd: 0.000001 });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.policy).toMatchObject({ ...NO_RULE, daily_usd: 0.000001 });
    expect((await call(`${svc.api}/policies`, { cookie: m.cookie })).body.policy).toMatchObject({ ...NO_RULE, daily_usd: 0.000001 });
    const cleared = await put(m, { daily_usd: null });
    expect(cleared.body.policy).toMatchObject(NO_RULE);
    expect(cleared.body.policy.policy).toEqual({});
  });

  it("a key's policy takes the same fields; [] allows nobody; the editor's nested form still works, with market or market_stake", async () => {
    const m = await merchant('Key Flat Shop');
    const set = await put(m, { per_transaction_usd: 5, allow_recipients: [], allowed_actions: ['market', 'bill'] }, `/keys/${m.keyId}/policy`);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.policy).toMatchObject({ scope: 'key', key_id: m.keyId, ...NO_RULE, per_transaction_usd: 5, allow_recipients: [], allowed_actions: ['market', 'bill'] });
    expect((await call(`${svc.api}/keys/${m.keyId}/policy`, { key: m.key })).body.policy).toMatchObject({ per_transaction_usd: 5, allow_recipients: [] });

    const nested = await put(m, { policy: { usd: { daily: '12.5' }, allowed_actions: ['market'] } });
    expect(nested.status, JSON.stringify(nested.body)).toBe(200);
    expect(nested.body.policy).toMatchObject({ daily_usd: 12.5, allowed_actions: ['market'], policy: { usd: { daily: '12.5' }, allowed_actions: ['market_stake'] } });
    const old = await put(m, { policy: { allowed_actions: ['market_stake'] } });
    expect(old.body.policy).toMatchObject({ allowed_actions: ['market'] });
  });

  it('amounts must be JSON numbers >= 0 with at most 6 decimals; unknown fields and actions are 400', async () => {
    const m = await merchant('Bad Body Shop');
    for (const bad of [{ per_transaction_usd: '50' }, { daily_usd: -1 }, { daily_usd: 0.0000001 }, { weekly_usd: 1e21 }, { allowed_actions: ['market_stake_x'] }, { per_transaction: 5 }]) {
      const r = await put(m, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call(`${svc.api}/policies`, { cookie: m.cookie })).body.policy).toMatchObject(NO_RULE);
  });

  it('missing session 401; a bearer key or a wrong password 403 permission_error', async () => {
    const m = await merchant('Auth Shop');
    expect((await put(m, { daily_usd: 1 }, '/policies', 'none')).status).toBe(401);
    const byKey = await put(m, { daily_usd: 10_000 }, '/policies', 'key');
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.type).toBe('permission_error');
    const wrong = await call(`${svc.api}/keys/${m.keyId}/policy`, { method: 'PUT', cookie: m.cookie, body: { password: 'nope', daily_usd: 1 } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.type).toBe('permission_error');
  });
});

describe('policy outcomes carry DESIGN reasons', () => {
  it('each cap names its window; recipients and actions have one reason each; a held action is approval_required', async () => {
    const m = await merchant('Reasons Shop');
    expect((await put(m, { per_transaction_usd: 50, daily_usd: 60, approval_threshold_usd: 30, block_recipients: ['+2348030000077'] })).status).toBe(200);

    const big = await settle(m, 'send 51 USD to @amina_dc');
    expect(big.status).toBe(422);
    expect(big.body).toMatchObject({ ok: false, action: 'transfer', reason: 'policy_per_transaction' });
    expect(typeof big.body.reply).toBe('string');

    const blocked = await settle(m, 'send 1 USD to @mallory_dc');
    expect(blocked.status).toBe(422);
    expect(blocked.body).toMatchObject({ ok: false, reason: 'policy_recipient' });

    const held = await settle(m, 'send 40 USD to @amina_dc');
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body).toMatchObject({ ok: true, action: 'transfer', reason: 'approval_required' });
    expect(held.body.pending).toMatchObject({ id: expect.any(String), expires_at: expect.any(String), description: expect.any(String) });
    expect((await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { confirm_action: held.body.pending.id } })).body.reason).toBe('approval_required');

  });

  it('a rolling cap names its window: policy_daily, policy_weekly, policy_monthly', async () => {
    const m = await merchant('Windows Shop');
    await put(m, { daily_usd: 30 });
    expect((await settle(m, 'send 25 USD to @amina_dc')).status).toBe(200);
    for (const [field, reason] of [['daily_usd', 'policy_daily'], ['weekly_usd', 'policy_weekly'], ['monthly_usd', 'policy_monthly']] as const) {
      expect((await put(m, { [field]: 30 })).status).toBe(200);
      const over = await settle(m, 'send 10 USD to @amina_dc');
      expect(over.status, field).toBe(422);
      expect(over.body).toMatchObject({ ok: false, action: 'transfer', reason });
    }
  });

  it('an allowlist miss is policy_recipient, an action not allowed is policy_action', async () => {
    const m = await merchant('Lists Shop');
    await put(m, { allow_recipients: ['@amina_dc'] });
    expect((await settle(m, 'send 1 USD to @mallory_dc')).body).toMatchObject({ ok: false, reason: 'policy_recipient' });
    await put(m, { allowed_actions: ['bill', 'market'] }, `/keys/${m.keyId}/policy`);
    const act = await settle(m, 'send 1 USD to @amina_dc');
    expect(act.status).toBe(422);
    expect(act.body).toMatchObject({ ok: false, reason: 'policy_action' });
  });

  it('POLICY_BREAKER pauses the key after N refusals: 429 policy_breaker with Retry-After', async () => {
    const m = await merchant('Breaker Shop');
    await put(m, { per_transaction_usd: 1 });
    for (let i = 0; i < 4; i++) expect((await settle(m, 'send 2 USD to @amina_dc')).body.reason).toBe('policy_per_transaction');
    const paused = await settle(m, 'send 1 USD to @amina_dc');
    expect(paused.status).toBe(429);
    expect(paused.body).toMatchObject({ ok: false, reason: 'policy_breaker' });
    const retry = Number(paused.headers.get('retry-after'));
    // The cool-down is 15 minutes.
    expect(retry).toBeGreaterThan(890);
    expect(retry).toBeLessThanOrEqual(900);
  });
});
