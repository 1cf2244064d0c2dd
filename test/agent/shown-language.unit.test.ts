import { describe, expect, it } from 'vitest';
import { detectLanguage, shownLanguage } from '../../src/agent/index.js';

/**
 * shownLanguage: what Telegram remembers as the language a person last wrote in (h15tour). A
 * message that shows none (a bare amount, "ok", a handle) gives undefined, so the remembered one
 * stays; detectLanguage, which must always answer, calls those English.
 */
describe('shownLanguage', () => {
  it('names the language a message is written in, as detectLanguage does', () => {
    for (const [text, lang] of [
      ['abeg how my money dey', 'pcm'],
      ['nionyeshe miamala yangu', 'sw'],
      ['montre mon historique', 'fr'],
      ['show my history', 'en'],
      ['send 5 usd to @bob', 'en'],
      ['@priya को 300 रुपये भेज दो', 'hi'],
    ] as const) {
      expect(shownLanguage(text)).toBe(lang);
      expect(detectLanguage(text)).toBe(lang);
    }
  });

  it('is undefined for a message with no word of any language, which detectLanguage calls English', () => {
    for (const text of ['50', 'ok', 'yes', '@amina', 'thanks', '👍', 'pay_2oPg8IS4tzi08zpnoSS255Bk']) {
      expect(shownLanguage(text)).toBeUndefined();
      expect(detectLanguage(text)).toBe('en');
    }
  });
});
