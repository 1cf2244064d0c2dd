import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { escapeHtml } from '../../src/web/layout.js';
import { ASSETS_DIR, safeNext } from '../../src/web/router.js';

describe('web app over HTTP', () => {
  let service: TestService;
  let merchant: Merchant;

  beforeAll(async () => {
    service = await startTestService();
    merchant = await createMerchant(service.api);
  });
  afterAll(async () => {
    await service?.stop({ removeData: true });
  });

  const get = (p: string, cookie?: string) => fetch(service.url + p, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  it('redirects signed-in pages to the login page without a session, remembering where to return', async () => {
    const home = await get('/app');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/app/login');
    const dev = await get('/app/developers');
    expect(dev.headers.get('location')).toBe('/app/login?next=%2Fapp%2Fdevelopers');
    // An ended session counts as none.
    expect((await get('/app', 'sp_session=not-a-session')).status).toBe(303);
  });

  it('sends a signed-in person from the login and sign-up pages to the app', async () => {
    for (const p of ['/app/login', '/app/signup']) {
      const r = await get(p, merchant.cookie);
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toBe('/app');
    }
    const r = await get('/app/login?next=%2Fapp%2Fdevelopers', merchant.cookie);
    expect(r.headers.get('location')).toBe('/app/developers');
  });

  it('only accepts its own app paths as a post-login target', async () => {
    expect(safeNext('/app/developers')).toBe('/app/developers');
    for (const bad of ['//evil.example', 'https://evil.example/app', '/app/../api', '/app/login', '/apple', '/app\\evil', undefined, 42]) {
      expect(safeNext(bad), String(bad)).toBeUndefined();
    }
    const page = await (await get('/app/login?next=%2F%2Fevil.example')).text();
    expect(page).toContain('data-next=""');
  });

  it('answers unknown /app paths with an HTML 404 page, signed in or not', async () => {
    for (const cookie of [undefined, merchant.cookie]) {
      const r = await get('/app/nope/deeper', cookie);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await r.text()).toContain('<h1>Page not found</h1>');
    }
    const asset = await get('/app/assets/missing.js');
    expect(asset.status).toBe(404);
  });

  it('serves pages with the CSP, no caching and no inline scripts', async () => {
    const pages: Array<[string, string | undefined]> = [
      ['/app/signup', undefined],
      ['/app/login', undefined],
      ['/app', merchant.cookie],
      ['/app/developers', merchant.cookie],
      ['/app/nope', merchant.cookie],
    ];
    for (const [p, cookie] of pages) {
      const r = await get(p, cookie);
      expect(r.status, p).toBe(p === '/app/nope' ? 404 : 200);
      const html = await r.text();
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(r.headers.get('cache-control')).toBe('no-store');
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1] ?? '');
      for (const attrs of scripts) expect(attrs, p).toMatch(/\ssrc="\/app\/assets\/[\w-]+\.js"/);
      expect(html, p).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
      expect(html, p).not.toMatch(/https?:\/\/(?!localhost|127\.0\.0\.1)[^"'\s]+\.(js|css)/); // no CDNs
    }
  });

  it('serves the page assets with their types, and they never use innerHTML', async () => {
    const js = await get('/app/assets/chat.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    const css = await get('/app/assets/app.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    for (const f of await readdir(ASSETS_DIR)) {
      if (!f.endsWith('.js')) continue;
      const src = await readFile(path.join(ASSETS_DIR, f), 'utf8');
      expect(src, f).not.toMatch(/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write/);
    }
  });

  it('escapes user text in the server-rendered pages', async () => {
    expect(escapeHtml(`<b a="1" b='2'>&</b>`)).toBe('&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;&lt;/b&gt;');
    const evil = await createMerchant(service.api, '<script>alert(1)</script>');
    const html = await (await get('/app', evil.cookie)).text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('GET /api/app/payments', () => {
  let service: TestService;
  let a: Merchant;
  let b: Merchant;
  const ids: string[] = [];

  beforeAll(async () => {
    service = await startTestService();
    a = await createMerchant(service.api, 'Shop A');
    b = await createMerchant(service.api, 'Shop B');
    for (let i = 1; i <= 3; i++) {
      const r = await call(`${service.api}/v1/payments`, {
        key: a.key,
        body: { amount: i * 10, currency: 'USD', redirect_url: 'https://shop.example/done', reference: `order-${i}` },
      });
      ids.push(r.body.id);
    }
    await call(`${service.api}/v1/payments`, { key: b.key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' } });
  });
  afterAll(async () => {
    await service?.stop({ removeData: true });
  });

  it('lists the signed-in account’s payments newest first, paginated', async () => {
    const first = await call(`${service.api}/app/payments?limit=2`, { cookie: a.cookie });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data[0]).toMatchObject({ object: 'payment', status: 'pending', reference: 'order-3', currency: 'USD', amount: 30 });
    expect(first.body.data[0].checkout_url).toMatch(new RegExp(`/pay/${ids[2]}$`));

    const next = await call(`${service.api}/app/payments?limit=2&starting_after=${ids[1]}`, { cookie: a.cookie });
    expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(next.body.has_more).toBe(false);
    expect(next.headers.get('cache-control')).toBe('no-store');
  });

  it('never shows another account’s payments', async () => {
    const r = await call(`${service.api}/app/payments`, { cookie: b.cookie });
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0].id).not.toBe(ids[0]);
    const cursor = await call(`${service.api}/app/payments?starting_after=${ids[0]}`, { cookie: b.cookie });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error).toMatchObject({ type: 'invalid_request_error', param: 'starting_after' });
  });

  it('needs a session: no cookie or only a bearer key gets 401', async () => {
    expect((await call(`${service.api}/app/payments`)).status).toBe(401);
    const withKey = await call(`${service.api}/app/payments`, { key: a.key });
    expect(withKey.status).toBe(401);
    expect(withKey.body.error.type).toBe('authentication_error');
  });

  it('rejects a bad query with invalid_request_error', async () => {
    const r = await call(`${service.api}/app/payments?limit=0`, { cookie: a.cookie });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'limit' });
  });
});
