import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/service.js';
import { authorize, createPayment, customer, settle, setup, usdc, type Ctx } from '../settlement/helpers.js';

const run = promisify(execFile);

/**
 * Issue 15, "Done means": the README's curl examples for refunds, cancel, the events API and
 * the webhook endpoints, run as written (real curl, real HTTP, the embedded chain), with the
 * `pay_...`, `re_...`, `evt_...` and `we_...` placeholders filled in with real ids.
 */
describe('README curl examples of issue 15', () => {
  let ctx: Ctx;

  beforeAll(async () => {
    ctx = await setup({ SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
  });
  afterAll(() => ctx?.svc.stop({ removeData: true }));

  /** The README's shell commands (continuation lines joined, comments dropped). */
  function readmeCommands(): string[] {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const out: string[] = [];
    for (const block of blocks) {
      for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
        const cmd = line.replace(/\s+#.*$/, '').trim();
        if (cmd.startsWith('curl ') && cmd.includes('$BASE')) out.push(cmd);
      }
    }
    return out;
  }

  const ISSUE_15 = /\/v1\/payments\/pay_\.\.\.\/(refunds|cancel)|\/v1\/refunds\/|\/v1\/events|\/webhook-endpoints?\b/;

  async function settled(): Promise<string> {
    const pay = await createPayment(ctx, { amount: 5000, currency: 'KES' });
    const payer = await customer(ctx, usdc('100'));
    expect((await settle(ctx, pay.id, await authorize(ctx, pay.id, payer))).status).toBe(200);
    return pay.id;
  }

  it('each one answers 2xx, and the ids they return feed the next ones', async () => {
    const commands = readmeCommands().filter((c) => ISSUE_15.test(c));
    const routes = (re: RegExp) => commands.filter((c) => re.test(c)).length;
    // The README shows each route at least once.
    expect(routes(/\/refunds -H .*-d /)).toBeGreaterThanOrEqual(2);
    expect(routes(/\/pay_\.\.\.\/refunds -H "Authorization: Bearer \$KEY"$/)).toBe(1);
    expect(routes(/\/v1\/refunds\/re_/)).toBe(1);
    expect(routes(/\/cancel /)).toBe(1);
    expect(routes(/\/v1\/events\?/)).toBeGreaterThanOrEqual(2);
    expect(routes(/\/v1\/events\/evt_/)).toBe(1);
    expect(routes(/-X DELETE \$BASE\/webhook-endpoints\/we_/)).toBe(1);
    expect(routes(/-X PATCH \$BASE\/webhook-endpoints\/we_/)).toBe(1);
    expect(routes(/^curl -s \$BASE\/webhook-endpoints\/we_/)).toBe(1);
    expect(routes(/-X PUT \$BASE\/webhook-endpoint /)).toBe(1);

    const ids: Record<string, string> = {};
    const paymentFor = async (cmd: string): Promise<string> => {
      if (/\/cancel /.test(cmd)) return (await createPayment(ctx)).id;
      // A new refund of a fresh settled payment; reads use the last refunded one.
      if (/\/refunds .*-d /.test(cmd)) return (ids.pay = await settled());
      return ids.pay!;
    };
    for (const template of commands) {
      let cmd = template;
      if (cmd.includes('pay_...')) cmd = cmd.replaceAll('pay_...', await paymentFor(cmd));
      for (const [placeholder, key] of [['re_...', 're'], ['evt_...', 'evt'], ['we_...', 'we']] as const) {
        if (!cmd.includes(placeholder)) continue;
        expect(ids[key], `an id for ${placeholder} before: ${template}`).toBeDefined();
        cmd = cmd.replaceAll(placeholder, ids[key]!);
      }
      const { stdout } = await run('bash', ['-c', `${cmd} -w '\\n%{http_code}'`], {
        env: { ...process.env, BASE: ctx.svc.api, KEY: ctx.merchant.key },
      });
      const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
      const body = JSON.parse(stdout.slice(0, stdout.lastIndexOf('\n')));
      expect(status, `${template}\n${stdout}`).toBeGreaterThanOrEqual(200);
      expect(status, `${template}\n${stdout}`).toBeLessThan(300);
      if (body.object === 'refund') {
        expect(body.status, template).toBe('succeeded');
        ids.re = body.id;
      }
      if (body.endpoint?.id) ids.we = body.endpoint.id;
      if (body.object === 'list' && /\/v1\/events/.test(cmd)) {
        expect(body.data.length, template).toBeGreaterThan(0);
        ids.evt ??= body.data[0].id;
      }
    }
    // What the examples did, read back: the endpoint they made is gone, the refunds are there.
    expect((await call(`${ctx.svc.api}/webhook-endpoints/${ids.we}`, { key: ctx.merchant.key })).status).toBe(404);
    expect((await call(`${ctx.svc.api}/v1/refunds/${ids.re}`, { key: ctx.merchant.key })).body.status).toBe('succeeded');
  });
});
