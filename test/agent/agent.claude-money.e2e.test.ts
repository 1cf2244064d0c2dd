import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';

/**
 * Tool calls the local parser never produces (it asks "which biller?" instead), as Claude
 * would make them: the Messages API is scripted with nock, everything else is real (HTTP,
 * handlers, bills module, anvil).
 */
const BASE = 'https://api.anthropic.com';
const message = (content: unknown[], stop_reason: 'tool_use' | 'end_turn') => ({
  id: `msg_${Math.random().toString(36).slice(2)}`,
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 10 },
});

function scriptTurn(tool: string, input: unknown, finalText: string) {
  return nock(BASE)
    .post('/v1/messages')
    .reply(200, message([{ type: 'tool_use', id: 'toolu_1', name: tool, input }], 'tool_use'))
    .post('/v1/messages')
    .reply(200, message([{ type: 'text', text: finalText }], 'end_turn'));
}

describe('POST /api/agent/settle with Claude tool calls the local parser would not make', () => {
  let svc: TestService;
  let payer: Merchant;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('localhost'));
    svc = await startTestService({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_MODEL: 'claude-test', ANTHROPIC_BASE_URL: BASE });
    payer = await createMerchant(svc.api, 'Payer');
    await svc.deps.accounts.update(payer.accountId, { country: 'NG', localCurrency: 'NGN' });
    const a = (await svc.deps.accounts.get(payer.accountId))!;
    const res = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(a.walletIndex), usdc('20'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await svc?.stop({ removeData: true });
  });

  // The messages name every argument the model passes: grounding (src/agent/grounding) would
  // otherwise end the turn before the bills module is asked.
  it.each([
    ['unknown biller', 'pay 5000 naira to Zappa Power, meter 45123456789', { biller: 'Zappa Power', account_number: '45123456789', amount: '5000' }, 'unknown_biller'],
    ['invalid meter', 'pay 5000 naira for IKEDC meter 1234', { biller: 'IKEDC', account_number: '1234', amount: '5000' }, 'invalid_account_number'],
  ])('%s: 422 with the reason, nothing moved', async (_label, message, input, reason) => {
    const a = (await svc.deps.accounts.get(payer.accountId))!;
    const from = svc.deps.chain.custodialAddress(a.walletIndex);
    const before = await balance(svc, from);
    const scope = scriptTurn('pay_bill', input, 'I could not pay that bill.');
    const r = await call(`${svc.api}/agent/settle`, { key: payer.key, body: { message } });
    expect(scope.isDone()).toBe(true);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ ok: false, action: 'bill', reason });
    expect(await balance(svc, from)).toBe(before);
  });
});
