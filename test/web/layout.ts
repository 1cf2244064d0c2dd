/**
 * Issue 27: what a person sees, checked in the page. `layoutProblems` lists every visible element
 * that is wider than its parent or pokes out of it, every element whose text is cut (content wider
 * or taller than a box that hides overflow, or an ellipsis), and sideways scrolling of the page.
 * `belowFold` says whether an element ends below the first screen.
 */
import type { Page } from 'playwright-core';

export async function layoutProblems(page: Page, root = 'body'): Promise<string[]> {
  return page.evaluate((rootSel) => {
    const problems: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) problems.push(`page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      const text = ((el as HTMLElement).innerText ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `${el.tagName.toLowerCase()}${id}${cls} "${text}"`;
    };
    const visible = (el: Element) => {
      const s = getComputedStyle(el);
      if (s.display === 'none' || s.visibility === 'hidden') return false;
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return false; // visually-hidden text is 1px on purpose
      // ...and so is everything inside a visually-hidden box (a table head on a phone).
      for (let a = el.parentElement; a; a = a.parentElement) {
        const ar = a.getBoundingClientRect();
        if ((ar.width <= 1 || ar.height <= 1) && getComputedStyle(a).overflow !== 'visible') return false;
      }
      return true;
    };
    const rootEl = document.querySelector(rootSel);
    if (!rootEl) return [`no ${rootSel}`];
    for (const el of Array.from(rootEl.querySelectorAll('*'))) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
      if (!visible(el)) continue;
      const s = getComputedStyle(el);
      if (s.position === 'fixed' || s.position === 'absolute') continue;
      const parent = el.parentElement;
      if (parent && visible(parent) && getComputedStyle(parent).display !== 'contents') {
        const r = el.getBoundingClientRect();
        const p = parent.getBoundingClientRect();
        if (r.right > p.right + 1 || r.left < p.left - 1) problems.push(`${describe(el)} sticks out of ${describe(parent)} (${Math.round(r.left)}-${Math.round(r.right)} vs ${Math.round(p.left)}-${Math.round(p.right)})`);
      }
      const clips = /hidden|clip|auto|scroll/.test(s.overflowX) || /hidden|clip/.test(s.overflowY);
      const h = el as HTMLElement;
      if (clips && h.scrollWidth > h.clientWidth + 1 && h.clientWidth > 0) problems.push(`${describe(el)} cuts its content sideways (${h.scrollWidth} > ${h.clientWidth})`);
      if (/hidden|clip/.test(s.overflowY) && h.scrollHeight > h.clientHeight + 1 && h.clientHeight > 0) problems.push(`${describe(el)} cuts its content (${h.scrollHeight} > ${h.clientHeight})`);
      if (s.textOverflow === 'ellipsis' && h.scrollWidth > h.clientWidth + 1) problems.push(`${describe(el)} text cut with an ellipsis`);
    }
    return problems;
  }, root);
}

/** The element's bottom edge lies below the first screen (without scrolling). */
export async function belowFold(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) throw new Error(`no ${sel}`);
    return el.getBoundingClientRect().bottom + window.scrollY > window.innerHeight;
  }, selector);
}

/** How many lines an inline element (a hash, an address) takes: one box per line it is on. */
export async function lineCount(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => new Set(Array.from(document.querySelector(sel)!.getClientRects(), (r) => Math.round(r.top))).size, selector);
}

/**
 * Words (2 to 20 characters, outside code) that the browser broke across lines: "Settlement / s",
 * a caption written one or two letters per line. Long hashes and URLs may wrap; words may not.
 */
export async function brokenWords(page: Page, root = 'main'): Promise<string[]> {
  return page.evaluate((rootSel) => {
    const broken: string[] = [];
    const rootEl = document.querySelector(rootSel);
    if (!rootEl) return [`no ${rootSel}`];
    const walker = document.createTreeWalker(rootEl, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement!;
      if (parent.closest('code, pre, svg, #chat')) continue;
      let hidden = false; // visually-hidden text (a table head on a phone) is 1px on purpose
      for (let a: Element | null = parent; a && !hidden; a = a.parentElement) {
        const r = a.getBoundingClientRect();
        hidden = r.width <= 1 || r.height <= 1 || getComputedStyle(a).display === 'none';
      }
      if (hidden) continue;
      const text = n.textContent ?? '';
      // Words split at spaces, hyphens and slashes (a break after "on-" is ordinary typesetting).
      for (const m of text.matchAll(/[^\s\-/]+/g)) {
        if (m[0].length < 2 || m[0].length > 20) continue;
        const range = document.createRange();
        range.setStart(n, m.index!);
        range.setEnd(n, m.index! + m[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        if (new Set(rects.map((r) => Math.round(r.top))).size > 1) broken.push(`"${m[0]}" in ${parent.tagName.toLowerCase()}${parent.id ? `#${parent.id}` : ''}`);
      }
    }
    return broken;
  }, root);
}
