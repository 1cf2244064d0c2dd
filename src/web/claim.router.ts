import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { mask } from '../claims/claims.js';
import type { Claim } from '../claims/claim-record.js';
import { CLAIM_LANGUAGES, type ClaimLanguage } from '../claims/claim-language.js';
import { hashPassword } from '../accounts/passwords.js';
import { setSessionCookie } from '../http/auth.js';
import { toE164 } from '../lib/phone.js';
import { formatUsdc } from '../lib/money.js';
import { sameOrigin, sessionAccount } from './deps.js';
import { claimDoneText, claimPage, type ClaimView } from './pages/claim.js';

const Token = z.string().regex(/^[0-9A-Za-z]{32}$/);
const SignupForm = z.object({
  name: z.string().trim().min(1).max(80),
  email: z.email().max(254).transform((s) => s.toLowerCase()),
  password: z.string().min(8, 'The password needs at least 8 characters.').max(200),
  phone: z.string().trim().max(30).optional(),
});

function view(core: Core, c: Claim): ClaimView {
  const status: ClaimView['status'] =
    c.status === 'open' ? 'open' : c.status === 'claimed' || c.status === 'claiming' ? 'claimed' : c.status === 'funding' || c.status === 'failed' ? 'waiting' : 'returned';
  return {
    senderName: c.senderName,
    amountText: core.fx.format(BigInt(c.sourceAmountMinor), c.sourceCurrency),
    usdcText: formatUsdc(c.amount),
    ...(c.note ? { note: c.note } : {}),
    contactKind: c.contactKind,
    maskedContact: mask(c),
    expiresOn: c.expiresAt.slice(0, 10),
    status,
    language: ((CLAIM_LANGUAGES as readonly string[]).includes(c.language) ? c.language : 'en') as ClaimLanguage,
    testMode: c.livemode === false,
  };
}

/**
 * The claim link's page (docs/claims.md): `GET /claim/:token` explains the money in the
 * sender's language; `POST /claim/:token` claims it for the signed-in account;
 * `POST /claim/:token/signup` creates the account (with the phone, for a phone claim), signs
 * it in and claims. The token is never logged or echoed beyond the form's own URL.
 */
export function claimPageRouter(core: Core): Router {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: '10kb' });
  const html = (res: Response, body: string, status = 200) => res.status(status).set('Cache-Control', 'no-store').set('Referrer-Policy', 'same-origin').type('html').send(body);
  const missing = (res: Response) => html(res, '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Link not valid · StablePay</title><link rel="stylesheet" href="/app/assets/app.css"></head><body><main class="claim"><section class="card"><h1>This link is not valid</h1><p>Check that you opened the whole link you were sent.</p></section></main></body></html>', 404);

  const load = async (req: Request) => {
    const token = String(req.params.token);
    if (!Token.safeParse(token).success) return undefined;
    const c = await core.claims.byToken(token);
    return c ? { token, claim: c } : undefined;
  };
  const render = async (req: Request, res: Response, c: Claim, token: string, outcome?: { ok: boolean; text: string }, status = 200) => {
    const me = await sessionAccount(core, req);
    html(res, claimPage(view(core, c), { action: `/claim/${token}`, ...(me ? { signedInAs: me.name } : {}), ...(outcome ? { outcome } : {}) }), status);
  };
  const claimFor = async (req: Request, res: Response, token: string, accountId: string) => {
    const done = await core.claims.claim(token, accountId);
    const now = (await core.claims.byToken(token))!;
    if (!done.ok) return render(req, res, now, token, { ok: false, text: done.message }, done.reason === 'wrong_claimant' ? 403 : 409);
    return render(req, res, now, token, { ok: true, text: claimDoneText(view(core, now).language, formatUsdc(now.amount)) });
  };

  r.get('/claim/:token', async (req, res) => {
    const found = await load(req);
    if (!found) return missing(res);
    await render(req, res, found.claim, found.token);
  });

  r.post('/claim/:token', form, async (req, res) => {
    const found = await load(req);
    if (!found) return missing(res);
    if (!sameOrigin(core, req)) return render(req, res, found.claim, found.token, { ok: false, text: 'This form must be sent from this page.' }, 403);
    const me = await sessionAccount(core, req);
    if (!me) return res.redirect(303, `/claim/${found.token}`);
    await claimFor(req, res, found.token, me.id);
  });

  r.post('/claim/:token/signup', form, async (req, res) => {
    const found = await load(req);
    if (!found) return missing(res);
    const { claim: c, token } = found;
    if (!sameOrigin(core, req)) return render(req, res, c, token, { ok: false, text: 'This form must be sent from this page.' }, 403);
    const parsed = SignupForm.safeParse(req.body ?? {});
    if (!parsed.success) return render(req, res, c, token, { ok: false, text: parsed.error.issues[0]?.message ?? 'Check the form.' }, 400);
    const sender = await core.accounts.get(c.senderAccountId);
    let phone: string | undefined;
    if (parsed.data.phone) {
      phone = toE164(parsed.data.phone, sender?.country);
      if (!phone) return render(req, res, c, token, { ok: false, text: 'That phone number is not valid; use the international form, e.g. +254712345678.' }, 400);
    }
    const created = await core.accounts.create({
      name: parsed.data.name,
      email: parsed.data.email,
      passwordHash: await hashPassword(parsed.data.password),
      ...(phone ? { phone } : {}),
    });
    if (!created.ok) return render(req, res, c, token, { ok: false, text: `${created.message} Sign in instead.` }, 409);
    const s = await core.accounts.createSession(created.account.id);
    setSessionCookie(core, res, s.token, s.expiresAt);
    // The session cookie is set on this answer; the claim itself checks the account's contact.
    req.headers.cookie = `sp_session=${encodeURIComponent(s.token)}`;
    await claimFor(req, res, token, created.account.id);
  });
  return r;
}
