import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';

/**
 * Issue 20, rule 5, through the real POST /api/agent/settle on the embedded chain: a French and
 * a Swahili transfer settle and are answered wholly in that language, with exactly the amounts
 * of the recorded transfer; an English one keeps the exact English summary; a French failure
 * (not enough balance) is answered in French.
 */
describe('localized money replies through POST /api/agent/settle', () => {
  let svc: TestService;
  let sn: Merchant;
  let ke: Merchant;
  let empty: Merchant;
  const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const settle = (m: Merchant, body: unknown) => call(`${svc.api}/agent/settle`, { key: m.key, body });

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
    const make = async (name: string, country: string, currency: string, fund: boolean, handle?: string) => {
      const m = await createMerchant(svc.api, name);
      await svc.deps.accounts.update(m.accountId, { country, localCurrency: currency, ...(handle ? { telegramUsername: handle } : {}) });
      if (fund) {
        const res = await svc.deps.chain.faucet(await wallet(m), usdc('500'), { nativeAmount: 0n });
        if (!res.ok) throw new Error(res.message);
      }
      return m;
    };
    sn = await make('Sender sn', 'SN', 'XOF', true);
    ke = await make('Sender ke', 'KE', 'KES', true);
    empty = await make('Sender empty', 'SN', 'XOF', false);
    await make('awa_ndiaye', 'SN', 'XOF', false, 'awa_ndiaye');
    await make('otieno', 'KE', 'KES', false, 'otieno');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const ENGLISH = /\b(Sent|who receives|Settled|Waiting|on-chain \(|fee|Nothing was)\b/;

  it('a French transfer settles and the reply is French, with the exact amounts', async () => {
    const before = await balance(svc, await wallet(sn));
    const r = await settle(sn, { message: 'envoie 5000 francs à @awa_ndiaye stp' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = r.body.transfer;
    expect(t).toMatchObject({ status: 'settled', currency: 'XOF' });
    const reply: string = r.body.reply;
    expect(reply.startsWith(`Envoyé : ${t.amount_text} à ${t.recipient}, qui reçoit ${t.recipient_amount_text}.`), reply).toBe(true);
    expect(reply).toContain('5,000 XOF');
    expect(reply).toContain(`${t.source_rate} XOF/USDC`);
    expect(reply).toContain(t.tx_hash.slice(0, 10));
    expect(reply).toMatch(/Réglé sur la blockchain/);
    expect(reply).not.toMatch(ENGLISH);
    expect(await balance(svc, await wallet(sn))).toBeLessThan(before);
  });

  it('a Swahili transfer settles and the reply is Swahili, with the exact amounts', async () => {
    const r = await settle(ke, { message: 'tuma shilingi 300 kwa @otieno tafadhali' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = r.body.transfer;
    expect(t).toMatchObject({ status: 'settled', currency: 'KES', amount: '300' });
    const reply: string = r.body.reply;
    expect(reply.startsWith(`Umetuma ${t.amount_text} kwa ${t.recipient}, atapokea ${t.recipient_amount_text}.`), reply).toBe(true);
    expect(reply).toContain('300.00 KES');
    expect(reply).toMatch(/ada \d|bila ada/);
    expect(reply).toMatch(/Imekamilika kwenye blockchain \(tx 0x/);
    expect(reply).not.toMatch(ENGLISH);
  });

  it('an English transfer keeps the exact English summary', async () => {
    const r = await settle(ke, { message: 'send 200 KES to @otieno' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.reply).toMatch(/^Sent 200\.00 KES to @otieno, who receives 200\.00 KES\. .* Settled on-chain \(tx 0x/);
  });

  it('a French failure (not enough balance) is answered in French, nothing moved', async () => {
    const r = await settle(empty, { message: 'envoie 5000 francs à @awa_ndiaye stp' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(r.body.reply).toBe("Votre solde est insuffisant pour cette opération (montant plus frais). Rien n'a été envoyé.");
  });
});
