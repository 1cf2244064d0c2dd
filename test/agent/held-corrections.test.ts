import { beforeAll, describe, expect } from 'vitest';
import { parseUnits } from 'viem';
import { merchantServiceTest } from '../helpers/service-fixtures.js';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { readCorrection } from '../../src/agent/held-corrections.js';

/**
 * Leftover 1 of the sixteenth round: a typed correction after a held action ("make it 30", "no, 20",
 * "actually to @bola") was not applied, and Confirm then ran the stored (old) figures. Now the
 * correction cancels the held action and holds a corrected one in its place; nothing moves at once,
 * and the old action's Confirm moves nothing. Real service, real HTTP, real anvil.
 */
const it = merchantServiceTest('Corrections Shop');

describe('a typed correction after a held action (chat widget)', () => {
  let s: TestService;
  let m: Merchant;
  let amina: string;
  let bola: string;
  const chat = (message: string) => call(`${s.api}/chat`, { cookie: m.cookie, body: { message } });
  const confirm = (id: string) => call(`${s.api}/chat/confirm`, { cookie: m.cookie, body: { action_id: id } });
  const balance = async (accountId: string) => {
    const a = (await s.deps.accounts.get(accountId))!;
    return s.deps.chain.balanceOf(s.deps.chain.custodialAddress(a.walletIndex));
  };

  it.beforeAll(async ({ svc, merchant }) => {
    s = svc;
    m = merchant;
    const sender = (await s.deps.accounts.get(m.accountId))!;
    const funded = await s.deps.chain.faucet(s.deps.chain.custodialAddress(sender.walletIndex), parseUnits('200', 6), { nativeAmount: 0n });
    expect(funded.ok).toBe(true);
    for (const name of ['amina_h17', 'bola_h17']) {
      const made = await s.deps.accounts.create({ name, country: 'US', telegramUsername: name });
      if (!made.ok) throw new Error(made.message);
      if (name === 'amina_h17') amina = made.account.id;
      else bola = made.account.id;
    }
  });

  it('"make it 30" replaces the held 50 with a held 30; the old Confirm moves nothing, the new one moves 30', async () => {
    const held = await chat('send 50 USD to @amina_h17');
    expect(held.status).toBe(200);
    const old = held.body.pending_action.id as string;
    const aminaBefore = await balance(amina);

    const fixed = await chat('make it 30');
    expect(fixed.status).toBe(200);
    expect(fixed.body.replaced_action).toMatchObject({ id: old, status: 'cancelled' });
    expect(fixed.body.pending_action).toMatchObject({ status: 'pending', tool: 'send_transfer' });
    expect(fixed.body.pending_action.id).not.toBe(old);
    expect(fixed.body.pending_action.description).toContain('Send 30.00 USD to @amina_h17');
    expect(fixed.body.transfer.input).toMatchObject({ recipient: '@amina_h17', amount: '30', currency: 'USD' });
    expect(await balance(amina)).toBe(aminaBefore); // held, never moved at once

    const late = await confirm(old);
    expect(late.body).toMatchObject({ ok: false, reason: 'cancelled' });
    expect(await balance(amina)).toBe(aminaBefore);

    const done = await confirm(fixed.body.pending_action.id);
    expect(done.status).toBe(200);
    expect(await balance(amina)).toBe(aminaBefore + parseUnits('30', 6));
  });

  it('"no, 20" and then "actually to @bola_h17": each a new held action; Confirm pays bola 20, amina nothing', async () => {
    const held = await chat('send 50 USD to @amina_h17');
    const first = held.body.pending_action.id as string;
    const amount = await chat('no, 20');
    expect(amount.body.replaced_action).toMatchObject({ id: first, status: 'cancelled' });
    expect(amount.body.transfer.input).toMatchObject({ recipient: '@amina_h17', amount: '20' });
    const who = await chat('actually to @bola_h17');
    expect(who.body.replaced_action).toMatchObject({ id: amount.body.pending_action.id, status: 'cancelled' });
    expect(who.body.transfer.input).toMatchObject({ recipient: '@bola_h17', amount: '20', currency: 'USD' });
    const [aminaBefore, bolaBefore] = [await balance(amina), await balance(bola)];
    expect((await confirm(first)).body.reason).toBe('cancelled');
    expect((await confirm(amount.body.pending_action.id)).body.reason).toBe('cancelled');
    expect((await confirm(who.body.pending_action.id)).status).toBe(200);
    expect(await balance(bola)).toBe(bolaBefore + parseUnits('20', 6));
    expect(await balance(amina)).toBe(aminaBefore);
  });

  it('a correction with nothing held (expired, cancelled, done) says so: nothing is held or moved', async () => {
    const r = await chat('make it 30');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, action: 'none', reason: 'nothing_held' });
    expect(r.body.reply).toMatch(/^There is no request waiting for your confirmation to change/);
    expect(r.body.pending_action).toBeUndefined();
    expect(r.body.replaced_action).toBeUndefined();
  });
});

describe('readCorrection', () => {
  it.each([
    ['make it 3k', { amount: '3000' }],
    ['no, 3000', { amount: '3000' }],
    ['No 3,000 naira', { amount: '3000', currency: 'NGN' }],
    ['actually to @bola', { recipient: '@bola' }],
    ['send it to @bola instead', { recipient: '@bola' }],
    ['sorry, make it 2.5k to +2348012345678', { amount: '2500', recipient: '+2348012345678' }],
    ['change the amount to 45.50 USD', { amount: '45.5', currency: 'USD' }],
    ['3000 instead', { amount: '3000' }],
  ])('%s', (text, want) => {
    expect(readCorrection(text, 'NGN')).toEqual(want);
  });
  it.each(['3000', 'to @bola', 'send 3000 to @bola', 'make it rain', 'no', 'make it 0', 'what is 3000 naira in USD'])('not a correction: %s', (text) => {
    expect(readCorrection(text, 'NGN')).toBeUndefined();
  });
});
