/**
 * Issue 27, the Developers screen's x402 "Most recent settlements" with real settlements: an agent
 * pays a merchant's API through the real @x402/fetch + @x402/evm client, @x402/express settles
 * through our facilitator on the embedded chain, and the merchant's screen is read at 1280x800
 * and 390x844. The caption is one readable line (not a letter per line), each row (a card on a
 * phone) has its labels, times read like every other page, gas is rounded (never 18 decimals),
 * a hash wraps only between whole pieces, each inside its cell, and nothing is wider than its parent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Address } from 'viem';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { newPayer, payingFetch, startResourceServer, type ResourceServer } from '../x402/helpers.js';
import { SIZES, launchBrowser, newPage, realErrors, screenshot, signUpThroughUi } from './browser.js';
import { brokenWords, layoutProblems } from './layout.js';
import { axeViolations } from './a11y.js';

const TIME = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC$/;
const LABELS = ['Time', 'Transaction', 'Gas used', 'Gas cost'];
const SETTLES = 3;

describe('Developers screen: x402 settlements (Chromium, real x402 client and chain)', () => {
  let service: TestService;
  let browser: Browser;
  let shop: ResourceServer | undefined;

  beforeAll(async () => {
    service = await startTestService({ RECONCILE_INTERVAL: '1h' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await shop?.close();
    await browser?.close();
    await service?.stop({ removeData: true });
  });

  for (const size of SIZES) {
    it(`${size.name}: real settlements render as a readable table (cards on a phone)`, async () => {
      const { context, page, consoleErrors } = await newPage(browser, service.url, size);
      await signUpThroughUi(page, `Weather API ${size.name}`);
      const key = (await (await page.request.post('/api/keys', { data: { label: 'x402' } })).json()) as { key: { secret: string } };
      const payTo: Address = newPayer().address;
      shop = await startResourceServer(service, key.key.secret, payTo, '10000');
      const transactions: string[] = [];
      for (let i = 0; i < SETTLES; i++) {
        const payer = newPayer();
        expect((await service.deps.chain.faucet(payer.address, 50_000n, { nativeAmount: 0n })).ok).toBe(true);
        const res = await payingFetch(payer, service).fetch(`${shop.url}/weather`);
        expect(res.status).toBe(200);
        transactions.push(decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction);
      }
      await shop.close();
      shop = undefined;
      const usage = await call(`${service.api}/x402/usage`, { key: key.key.secret });
      expect(usage.body.settlements).toBe(SETTLES);

      await page.goto('/app/developers');
      const section = page.locator('section', { has: page.getByRole('heading', { name: 'x402 facilitator' }) });
      await section.scrollIntoViewIfNeeded();
      await expect(page.locator('#x402-settlements').innerText()).resolves.toBe(String(SETTLES));
      const rows = page.locator('#x402-recent tbody tr');
      await expect(rows.count()).resolves.toBe(SETTLES);
      await screenshot(page, `developers-27-${size.name}-x402`);
      await screenshot(section, `developers-27-${size.name}-x402-section`);

      // The caption: one line, as wide as its words (a letter-per-line caption is tall and narrow).
      const caption = page.locator('#x402-recent-title');
      await expect(caption.innerText()).resolves.toBe('Most recent settlements');
      const cap = await caption.evaluate((h) => {
        const lh = parseFloat(getComputedStyle(h).lineHeight) || parseFloat(getComputedStyle(h).fontSize) * 1.3;
        const range = document.createRange();
        range.selectNodeContents(h);
        return { lines: new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size, height: h.getBoundingClientRect().height, lh, width: range.getBoundingClientRect().width };
      });
      expect(cap.lines).toBe(1);
      expect(cap.height).toBeLessThan(cap.lh * 1.6);
      expect(cap.width).toBeGreaterThan(120);

      // Every cell: its label (a column head on desktop, a ::before label on a phone), readable values.
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from(tr.querySelectorAll('td'), (td) => {
            const before = getComputedStyle(td, '::before').content;
            const head = td.closest('table')!.querySelectorAll('thead th')[(td as HTMLTableCellElement).cellIndex] as HTMLElement;
            const headShown = head.getBoundingClientRect().width > 1;
            return {
              label: td.dataset.label,
              shownLabel: headShown ? head.innerText.trim() : before.replace(/^"|"$/g, ''),
              text: (td.querySelector('time, .hash') as HTMLElement | null)?.innerText ?? td.innerText.trim(),
              hashPieces: Array.from(td.querySelectorAll('.hash span'), (s) => {
                const box = s.getBoundingClientRect();
                const cell = td.getBoundingClientRect();
                return { chars: (s as HTMLElement).innerText.length >= 8, lines: new Set(Array.from(s.getClientRects(), (r) => Math.round(r.top))).size, inside: box.left >= cell.left - 1 && box.right <= cell.right + 1 };
              }),
            };
          }),
        ),
      );
      expect(cells.length).toBe(SETTLES);
      for (const row of cells) {
        expect(row.map((c) => c.label)).toEqual(LABELS);
        expect(row.map((c) => c.shownLabel)).toEqual(LABELS);
        const [time, tx, gasUsed, gasCost] = row;
        expect(time!.text).toMatch(TIME);
        expect(transactions).toContain(tx!.text.replace(/\s+/g, ''));
        // Whole pieces of the hash (none a lone character), each on one line and inside its cell.
        expect(tx!.hashPieces.length).toBeGreaterThanOrEqual(2);
        for (const piece of tx!.hashPieces) expect(piece).toEqual({ chars: true, lines: 1, inside: true });
        expect(gasUsed!.text).toMatch(/^\d{1,3}(,\d{3})*$/);
        expect(gasCost!.text).toMatch(/^(\d{1,3}(,\d{3})*(\.\d{1,8})?|< 0\.00000001)$/);
      }
      // The totals above the table follow the same rules.
      expect(await page.locator('#x402-gas-cost span').innerText()).toMatch(/^(\d{1,3}(,\d{3})*(\.\d{1,8})?|< 0\.00000001)$/);

      expect(await brokenWords(page, 'main')).toEqual([]);
      expect(await layoutProblems(page, 'main')).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(realErrors(consoleErrors)).toEqual([]);
      await context.close();
    }, 180_000); // many pages and real settles: slow on a shared machine
  }
});
