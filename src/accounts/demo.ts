import { randomBase62 } from '../lib/ids.js';
import type { AccountsService } from './accounts.js';

export const DEMO_EMAIL = 'demo@example.com';

/** On an empty store (not production): a demo merchant whose login is printed once, never logged. */
export async function ensureDemoAccount(
  accounts: AccountsService,
  print: (text: string) => void,
  publicUrl = '<PUBLIC_URL>',
): Promise<void> {
  if (await accounts.findBy({ email: DEMO_EMAIL })) return;
  if ((await accounts.count()) > 0) return;
  const password = randomBase62(16);
  const created = await accounts.signup({ email: DEMO_EMAIL, password, name: 'Demo Merchant', country: 'NG' });
  if (!created.ok) return;
  print(
    [
      '',
      '  Demo merchant created (shown once):',
      `    email:    ${DEMO_EMAIL}`,
      `    password: ${password}`,
      `  Sign in at ${publicUrl}/app, or create an API key from the command line:`,
      `    curl -c jar -H "Content-Type: application/json" -d '{"email":"${DEMO_EMAIL}","password":"${password}"}' ${publicUrl}/api/auth/login`,
      `    curl -b jar -H "Content-Type: application/json" -d '{"label":"my server"}' ${publicUrl}/api/keys`,
      '',
    ].join('\n'),
  );
}
