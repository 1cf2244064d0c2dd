import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Claims } from '../../src/claims/claim-record.js';
import { PendingActions } from '../../src/agent/index.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { formatUsdc } from '../../src/lib/money.js';
import { outcomeReply } from '../../src/agent/local/outcome-replies-i18n.js';

/**
 * Issue 26 part 1 through the real doors with the embedded anvil: a transfer to a phone with no
 * account (POST /api/agent/settle) moves the money into the claim's escrow and answers a link;
 * the page explains it in the sender's language; another person is refused; signing up with
 * that phone claims it; a second claim is refused; the sender cancels another one and gets all
 * of it back; the token is stored nowhere but as a hash.
 */
describe('claim links through the real doors', () => {
  let svc: TestService;
  let sender: Merchant; // Kenyan, funded
  let other: Merchant;
  const wallet = async (id: string): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(id))!.walletIndex);
  const settle = (m: Merchant, body: unknown) => call(`${svc.api}/agent/settle`, { key: m.key, body });
  const form = (url: string, fields: Record<string, string>, cookie?: string) =>
    fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
    [sender, other] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Other')]);
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    const res = await svc.deps.chain.faucet(await wallet(sender.accountId), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('issue h11: the claim\'s answer is whole in the message\'s language (was "Listo." and the English summary); the English one is the summary itself', async () => {
    const en = await settle(sender, { message: 'send 200 KES to +254 712 000 333' });
    expect(en.status, JSON.stringify(en.body)).toBe(200);
    expect(outcomeReply('send_transfer', en.body.transfer, 'en')).toBe(en.body.reply);
    const sw = await settle(sender, { message: 'tuma 300 kwa +254 712 000 444' });
    expect(sw.status, JSON.stringify(sw.body)).toBe(200);
    expect(sw.body).toMatchObject({ ok: true, action: 'transfer', transfer: { type: 'claim', status: 'open' } });
    expect(sw.body.reply).toMatch(/^\+2547•••••444 bado hana akaunti, kwa hiyo 300\.00 KES \(\d+\.\d+ USDC\) imehifadhiwa kwa ajili yake hadi \d{4}-\d\d-\d\d\. Mtumie kiungo hiki/);
    expect(sw.body.reply).toContain(sw.body.transfer.claim_url);
    expect(sw.body.reply).toContain('namba hiyo ya simu');
    // h17claimfee: the amount comes back on cancel or expiry, our fee is kept (was "pesa zinarudi kwako", "it comes back to you").
    expect(en.body.reply).toContain(`if you cancel or nobody claims it, ${formatUsdc(en.body.transfer.stablecoin_amount_base_units)} comes back to you and our fee is kept.`);
    expect(sw.body.reply).toContain(`ukighairi au kisipochukuliwa, ${formatUsdc(sw.body.transfer.stablecoin_amount_base_units)} zinarudi kwako na ada yetu inabaki kwetu.`);
    expect(sw.body.reply).not.toMatch(/has no account|Send them|Done\./);
  });

  it('phone with no account -> claim link -> page in Swahili -> wrong person refused -> sign-up with that phone claims -> second claim refused', async () => {
    const from = await wallet(sender.accountId);
    const start = await balance(svc, from);
    const sent = await settle(sender, { message: 'send 1000 KES to +254 712 000 111' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ ok: true, action: 'transfer', transfer: { type: 'claim', status: 'open', recipient: '+2547•••••111' } });
    const url: string = sent.body.transfer.claim_url;
    expect(url).toMatch(/\/claim\/[0-9A-Za-z]{32}$/);
    const token = url.split('/claim/')[1]!;
    expect(sent.body.reply).toContain(url);
    const c = (await svc.deps.claims.get(sent.body.transfer.id))!;
    const escrow = c.escrowAddress as Address;
    // The sender's wallet and the claim's escrow add up to what the sender had.
    expect(await balance(svc, escrow)).toBe(BigInt(c.total));
    expect((await balance(svc, from)) + (await balance(svc, escrow))).toBe(start);
    expect(JSON.stringify(await svc.deps.store.table(Claims).findMany({}))).not.toContain(token);

    const page = await fetch(`${svc.url}/claim/${token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<html lang="sw">');
    expect(html).toContain('Wanjiru amekutumia 1,000.00 KES');
    expect(html).toContain('+2547•••••111');
    expect(html).not.toContain('+254712000111');
    expect((await fetch(`${svc.url}/claim/${'A'.repeat(32)}`)).status).toBe(404);

    // Someone else, signed in, cannot take it.
    const wrong = await form(`${svc.url}/claim/${token}`, {}, other.cookie);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain('sign in with that phone');
    expect(await balance(svc, escrow)).toBe(BigInt(c.total));
    // Sign-up with another phone is refused too (the account is made, the claim is not).
    const otherPhone = await form(`${svc.url}/claim/${token}/signup`, { name: 'Imposter', email: `imp${Date.now()}@example.com`, password: 'correct horse battery', phone: '+254799999999' });
    expect(otherPhone.status).toBe(403);

    const signup = await form(`${svc.url}/claim/${token}/signup`, { name: 'Baraka', email: `baraka${Date.now()}@example.com`, password: 'correct horse battery', phone: '0712 000 111' });
    expect(signup.status).toBe(200);
    expect(await signup.text()).toContain('ziko kwenye pochi yako');
    const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
    const claimed = (await svc.deps.claims.get(c.id))!;
    expect(claimed).toMatchObject({ status: 'claimed', feeSettled: true });
    const to = await wallet(claimed.claimantAccountId!);
    expect(await balance(svc, to)).toBe(BigInt(c.amount));
    expect(await balance(svc, escrow)).toBe(0n);
    expect(await balance(svc, svc.deps.chain.custodialAddress(FEE_WALLET_INDEX))).toBeGreaterThanOrEqual(BigInt(c.fee));

    const again = await form(`${svc.url}/claim/${token}`, {}, cookie);
    expect(again.status).toBe(409);
    expect(await balance(svc, to)).toBe(BigInt(c.amount));

    // Both people's activity show it, with each step.
    const mine = await call(`${svc.api}/claims`, { key: sender.key });
    expect(mine.body.data[0]).toMatchObject({ id: c.id, role: 'sender', status: 'claimed' });
    expect(mine.body.data[0].events.map((e: { type: string }) => e.type)).toEqual(['transfer.claim_created', 'transfer.claimed']);
    const theirs = await call(`${svc.api}/claims`, { cookie });
    expect(theirs.body.data[0]).toMatchObject({ id: c.id, role: 'recipient', status: 'claimed' });
    const activity = await settle(sender, { message: 'what did I pay this month' });
    expect(activity.body.activity.entries.map((e: { id: string }) => e.id)).toContain(c.id);
  });

  it('through a preview (as in chat and Telegram): the pending action never stores the token; the sender cancels and gets the amount back, our fee kept', async () => {
    const from = await wallet(sender.accountId);
    const start = await balance(svc, from);
    const preview = await settle(sender, { message: 'send 500 KES to zawadi.nobody@example.com', confirm: false });
    expect(preview.status).toBe(200);
    expect(preview.body.pending.description).toMatch(/has no account yet/);
    // h17claimfee: the preview says the amount comes back and our fee is kept (was "all of it comes back").
    expect(preview.body.pending.description).toContain(`If it is not claimed in time (or you cancel), ${preview.body.pending.description.match(/yet: (\d+\.\d+ USDC)/)![1]} comes back to you and our`);
    expect(preview.body.pending.description).not.toContain('all of it comes back');
    expect(await balance(svc, from)).toBe(start);
    const done = await settle(sender, { confirm_action: preview.body.pending.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const token = (done.body.transfer.claim_url as string).split('/claim/')[1]!;
    const stored = await svc.deps.store.table(PendingActions).get(preview.body.pending.id);
    expect(JSON.stringify(stored)).not.toContain(token);
    const repeat = await settle(sender, { confirm_action: preview.body.pending.id });
    expect(JSON.stringify(repeat.body)).not.toContain(token);

    const id = done.body.transfer.id as string;
    expect((await call(`${svc.api}/claims/${id}/cancel`, { key: other.key, body: {} })).status).toBe(404);
    const canceled = await call(`${svc.api}/claims/${id}/cancel`, { key: sender.key, body: {} });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled' });
    expect(canceled.body.events.map((e: { type: string }) => e.type)).toEqual(['transfer.claim_created', 'transfer.claim_canceled']);
    const c = (await svc.deps.claims.get(id))!;
    expect(BigInt(c.fee)).toBeGreaterThan(0n);
    expect(canceled.body).toMatchObject({ returned_amount: canceled.body.stablecoin_amount, fee_kept: canceled.body.fee });
    expect(await balance(svc, from)).toBe(start - BigInt(c.fee));
    // A retried cancel answers the canceled claim again (as a canceled payment's does), and nothing moves twice (h16tour: a 400).
    const again = await call(`${svc.api}/claims/${id}/cancel`, { key: sender.key, body: {} });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(canceled.body);
    expect(await balance(svc, from)).toBe(start - BigInt(c.fee));
    const page = await (await fetch(`${svc.url}/claim/${token}`)).text();
    expect(page).toContain('imerudi kwa mtumaji');
  });
});
