/**
 * Issue 27, the README as written: the agent examples (`/agent/settle`, the friend to send to, the
 * dev faucet) run as a newcomer runs them on a fresh start, with real curl against a fresh service.
 * The transfer preview finds its recipient (no "couldn't find anyone called @amina") and the
 * confirm moves the money. Only `$BASE`, `$KEY`, `0x...` and `act_...` are filled in.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The README's shell commands (continuation lines joined, comments dropped). */
function shCommands(): string[] {
  const out: string[] = [];
  for (const m of README.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of m[1]!.replace(/\\\n\s*/g, ' ').split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (cmd.startsWith('curl ') && cmd.includes('$BASE')) out.push(cmd);
    }
  }
  return out;
}

/** The wallet address GET /api/me names (wherever in the account it sits). */
function addressIn(body: unknown): `0x${string}` {
  const m = /"(0x[0-9a-fA-F]{40})"/.exec(JSON.stringify(body));
  if (!m) throw new Error(`no address in ${JSON.stringify(body)}`);
  return m[1] as `0x${string}`;
}

describe('README agent examples, as written, on a fresh start', () => {
  let svc: TestService;
  let me: Merchant;
  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h' });
    me = await createMerchant(svc.api, 'Newcomer');
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  async function curl(cmd: string): Promise<{ status: number; body: any }> {
    const { stdout } = await run('bash', ['-c', `${cmd} -w '\\n%{http_code}'`], { env: { ...process.env, BASE: svc.api, KEY: me.key } });
    const cut = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
  }

  it('balance, a friend signed up, a held transfer to them, confirmed: each answers 2xx and the money moves', async () => {
    // Funding the own wallet, as the README says: the address from GET $BASE/me (with the key), then the faucet.
    const self = await curl('curl -s $BASE/me -H "Authorization: Bearer $KEY"');
    expect(self.status, JSON.stringify(self.body)).toBe(200);
    const address = addressIn(self.body);
    expect(address, JSON.stringify(self.body)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const faucet = /`(curl -s \$BASE\/dev\/faucet [^`]+)`/.exec(README)?.[1];
    expect(faucet, 'the README shows the faucet').toBeDefined();
    expect((await curl(faucet!.replace('0x...', address))).status).toBe(200);

    const agent = shCommands().filter((c) => /\/agent\/settle|friends\.example/.test(c));
    expect(agent.length, agent.join('\n')).toBeGreaterThanOrEqual(4);
    let action = '';
    for (const template of agent) {
      const cmd = template.includes('act_...') ? template.replace('act_...', action) : template;
      if (template.includes('act_...')) expect(action, 'a held action before the confirm').toMatch(/^act_/);
      const res = await curl(cmd);
      expect(res.status, `${template}\n${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(200);
      expect(res.status, `${template}\n${JSON.stringify(res.body)}`).toBeLessThan(300);
      expect(JSON.stringify(res.body)).not.toMatch(/couldn.t find anyone/i);
      if (res.body.pending?.id) action = res.body.pending.id;
      if (template.includes('act_...')) expect(res.body.action, JSON.stringify(res.body)).toBe('transfer');
    }
    expect(action).toMatch(/^act_/);
    // The friend received it.
    const friend = await call(`${svc.api}/auth/login`, { body: { email: 'amina@friends.example', password: 'another long passphrase' } });
    expect(friend.status).toBe(200);
    const friendMe = await call(`${svc.api}/me`, { cookie: friend.headers.get('set-cookie')!.split(';')[0]! });
    expect(await svc.deps.chain.balanceOf(addressIn(friendMe.body))).toBeGreaterThan(0n);
  });
});
