import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, fund, usdc } from '../helpers/money.js';

/**
 * h17tour: a 0x address typed in mixed case carries an EIP-55 checksum. One that does not match
 * (a mistyped character, or case changed by hand) was accepted as `payout_address` and as a
 * transfer's recipient, so money could go to an address nobody holds. Now it is refused with a
 * message that says why; all lower case (no checksum) and a correct checksum work as before.
 */
const OUTSIDE = '0x52908400098527886E0F7030069857D2E4169EE7'; // EIP-55's own example, checksummed
const BAD = '0x52908400098527886E0F7030069857D2E4169Ee7'; // one letter's case changed
const LOWER = OUTSIDE.toLowerCase();

describe('0x addresses with a wrong EIP-55 checksum are refused (real HTTP)', () => {
  let svc: TestService;
  let m: Merchant;
  beforeAll(async () => {
    svc = await startTestService();
    m = await createMerchant(svc.api, 'Checksum Shop');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const pay = (payout_address: string) =>
    call(`${svc.api}/v1/payments`, { key: m.key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/t', payout_address } });

  it('payout_address: a wrong checksum is a 400 naming the field; lower case and a right checksum are 201', async () => {
    const bad = await pay(BAD);
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
    expect(bad.body.error.param).toBe('payout_address');
    expect(bad.body.error.message).toMatch(/^payout_address must be a 0x EVM address; .*checksum/);
    expect((await pay(LOWER)).status).toBe(201);
    expect((await pay(OUTSIDE)).status).toBe(201);
    expect((await pay(`0x${OUTSIDE.slice(2).toUpperCase()}`)).status).toBe(201);
  });

  it('a transfer to a wrong-checksum address moves nothing and says why; the same address in lower case pays', async () => {
    const account = (await svc.deps.accounts.get(m.accountId))!;
    await fund(svc, account, '10');
    const before = await balance(svc, OUTSIDE);
    const send = (to: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message: `send 1 USD to ${to}` } });
    const refused = await send(BAD);
    expect(refused.status).toBe(422);
    expect(refused.body.ok).toBe(false);
    expect(refused.body.reply).toMatch(/checksum/);
    expect(refused.body.reply).toMatch(/Nothing was sent/);
    expect(await balance(svc, OUTSIDE)).toBe(before);
    const sent = await send(LOWER);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.transfer.status).toBe('settled');
    expect(await balance(svc, OUTSIDE)).toBe(before + usdc('1'));
  });
});
