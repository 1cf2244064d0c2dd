import { describe, expect, it } from 'vitest';
import { parse } from './local-parse-helpers.js';

/**
 * A yes/no question whether a send or payment already happened is answered from the activity
 * (list_activity), never read as a request to send or as a price question, in each of the eight
 * languages (src/agent/local/sent-question.ts, docs/local-engine.md "Questions about a past send").
 * Before h14fix "how far? you don send the 5k to @amaka?" was a transfer quote and "did you send
 * 5k to @amaka?" a held transfer.
 */
const ASKED: ReadonlyArray<[string, string, string]> = [
  ['en', 'hey, did you already transfer the 2k to @bola?', 'NGN'],
  ['en', 'has my payment to @kofi been sent?', 'GHS'],
  ['en', 'have we paid @ngozi the 10k yet?', 'NGN'],
  ['pcm', 'how far? you don send the 5k to @amaka?', 'NGN'],
  ['pcm', 'abeg una don pay @tunde the 3k?', 'NGN'],
  ['pcm', 'wetin happen, you don transfer the 2k to @bisi?', 'NGN'],
  ['sw', 'je, umeshamtumia @wanjiku elfu mbili?', 'KES'],
  ['sw', 'umelipa 300 kwa @otieno?', 'KES'],
  ['sw', 'pesa imetumwa kwa @baraka?', 'KES'],
  ['fr', 't’as déjà viré les 5000 à @awa ?', 'XOF'],
  ['fr', "est-ce que j'ai payé @fatou ?", 'XOF'],
  ['fr', 'avez-vous transféré 2000 à @ibrahima ?', 'XOF'],
  ['pt', 'você enviou os 100 reais pra @carla?', 'BRL'],
  ['pt', 'eu já paguei a @bia?', 'BRL'],
  ['pt', 'já foi enviado o pix de 50 pra @rafa?', 'BRL'],
  ['es', '¿le pagaste los 300 pesos a @chuy?', 'MXN'],
  ['es', '¿ya le envié a @lupita los 500?', 'MXN'],
  ['es', '¿enviaste 1000 a @maria?', 'MXN'],
  ['hi', '@priya ko 2000 transfer kar diya kya?', 'INR'],
  ['hi', 'aapne @amit ko 300 bheje?', 'INR'],
  ['hi', '@rohit ka 500 transfer ho gaya?', 'INR'],
  ['tl', 'nagpadala ka na ba ng 500 kay @ana?', 'PHP'],
  ['tl', 'nabayaran ko na ba si @mark?', 'PHP'],
  ['tl', 'naipadala na ba yung 2k kay @lito?', 'PHP'],
];

/** The same people and amounts asked for: still a send. */
const REQUESTS: ReadonlyArray<[string, string, string]> = [
  ['en', 'send 2k to @bola', 'NGN'],
  ['pcm', 'abeg send 3k give @tunde', 'NGN'],
  ['sw', 'tuma 300 kwa @otieno', 'KES'],
  ['fr', 'envoie 5000 à @awa', 'XOF'],
  ['pt', 'manda 100 reais pra @carla', 'BRL'],
  ['es', 'mándale 300 pesos a @chuy', 'MXN'],
  ['hi', '@priya ko 2000 bhej do', 'INR'],
  ['tl', 'padalhan mo si @ana ng 500', 'PHP'],
];

/** What would happen if it had been sent: a condition the gate answers, not the activity (corridor-3's "agar … bhej diya toh kya hoga?"). */
const WHAT_IF: ReadonlyArray<[string, string, string]> = [
  ['en', 'what if I sent 50 to the wrong person?', 'USD'],
  ['pcm', 'what if you don send the 5k to the wrong @amaka?', 'NGN'],
  ['sw', 'itakuwaje kama umetuma 300 kwa namba mbaya?', 'KES'],
  ['fr', 'et si tu as envoyé 5000 au mauvais numéro ?', 'XOF'],
  ['pt', 'e se eu já paguei a @bia duas vezes?', 'BRL'],
  ['es', '¿y si ya le envié a @lupita los 500 dos veces?', 'MXN'],
  ['hi', 'maan lo maine @amit ko 300 bhej diya, phir kya?', 'INR'],
  ['tl', 'paano kung nagpadala ka na ng 500 sa maling numero?', 'PHP'],
];

describe('local engine: a question whether a send happened', () => {
  it.each(WHAT_IF)('%s: "%s" asks what would happen: no activity list, nothing sent', (_lang, text, cur) => {
    expect(parse(cur, text).kind, JSON.stringify(parse(cur, text))).toBe('none');
  });

  it.each(ASKED)('%s: %s', (_lang, text, cur) => {
    const r = parse(cur, text);
    expect(r.kind === 'tool' ? r.call.name : r.kind, JSON.stringify(r)).toBe('list_activity');
  });

  it.each(REQUESTS)('%s: the request "%s" is still a send', (_lang, text, cur) => {
    const r = parse(cur, text);
    expect(r.kind === 'tool' ? r.call.name : r.kind, JSON.stringify(r)).toBe('send_transfer');
  });
});
