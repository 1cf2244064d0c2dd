import { describe, expect, it } from 'vitest';
import { asksWhetherItHappened } from '../../src/agent/local/sent-question.js';
import { FILLER_PHRASES, greetingIndices, greetingLead, fillerIndices } from '../../src/agent/local/fillers.js';
import { tokenize } from '../../src/agent/local/tokenize.js';
import { screenMessage } from '../../src/agent/local/parse-message.js';
import { parse } from './local-parse-helpers.js';

/**
 * Issue h15, the engine's cleanups: "asked whether it happened" lives in one place
 * (sent-question.ts `asksWhetherItHappened`: English's own-past questions that were read-intents.ts's
 * PAST_QUESTION, the completed-send questions, and whether the money arrived), and the greeting phrases
 * are tagged inside the closed filler list (fillers.ts) instead of a word list kept apart (GREETS).
 */

const name = (cur: string, text: string) => {
  const r = parse(cur, text);
  return r.kind === 'tool' ? r.call.name : `${r.kind}:${'reason' in r ? r.reason : ''}`;
};

describe('asked whether it happened: one predicate', () => {
  it('English own-past questions (no mark needed), completed sends, and whether the money arrived, in the languages', () => {
    for (const text of [
      'did my 10k to @amaka go through',
      'when will the money arrive',
      'did I already pay DStv?',
      'did you send the 5k to @amaka?',
      "J'ai envoyé 10 000 à Aminata ce matin, tu peux vérifier si c'est passé ?",
      'elle a bien reçu les 5 000 ?',
      'nimetuma 500 kwa @zawadi, imefika?',
      'maine 500 bheje the, pahunch gaya kya',
      'nagpadala ako ng 500 kay @josebau, pumasok na ba?',
      'I sent 5k to @amaka, e don land?',
      'did it go through?',
    ]) expect(asksWhetherItHappened(text), text).toBe(true);
  });

  it('near misses: a request, a hypothetical, and a message that "arrived" are no such question', () => {
    for (const text of [
      'send 5k to @amaka',
      'agar galat number pe 500 bhej diya toh kya hoga?',
      "me llegó un mensaje: 'envía 500 a @lupita' ¿es real?",
      'recebi uma mensagem: manda 100 pra @joana, chegou agora, é golpe?',
      'light don go since morning, buy 5k IKEDC for meter 45123456789',
    ]) expect(asksWhetherItHappened(text), text).toBe(false);
  });

  it('the parser answers the arrival questions from the activity, never as a send or a condition', () => {
    expect(name('XOF', "J'ai envoyé 10 000 à Aminata ce matin, tu peux vérifier si c'est passé ?")).toBe('list_activity');
    expect(name('KES', 'nimetuma 500 kwa @zawadi, imefika?')).toBe('list_activity');
    expect(name('PHP', 'nagpadala ako ng 500 kay @josebau, pumasok na ba?')).toBe('list_activity');
    expect(name('MXN', "me llegó un mensaje: 'envía 500 a @lupita' ¿es real?")).not.toBe('list_activity');
  });
});

describe('Pidgin "you never send the 5k to @amaka?": a question whether a send happened, not a negation', () => {
  it('answered from the activity (moves nothing), with or without a greeting before it', () => {
    expect(name('NGN', 'you never send the 5k to @amaka?')).toBe('list_activity');
    expect(name('NGN', 'how far? you never send the 5k to @amaka?')).toBe('list_activity');
    expect(name('NGN', 'una never pay @emeka the 2k?')).toBe('list_activity');
  });

  it('near misses: without the question it is still a negation; another engine\'s screen still stops it', () => {
    expect(name('NGN', 'you never send the 5k to @amaka')).toBe('none:negation');
    expect(name('NGN', 'abeg no send the 5k to @amaka')).toBe('none:negation');
    const ctx = { now: new Date('2026-11-28T10:00:00Z'), localCurrency: 'NGN', timeZone: 'UTC' };
    expect(screenMessage('you never send the 5k to @amaka?', ctx)).toMatchObject({ reason: 'negation' });
  });
});

describe('greeting phrases tagged inside the filler list (one list, no GREETS apart)', () => {
  it('the exported phrases carry no tag; greetingIndices covers exactly the greeting phrases', () => {
    for (const list of Object.values(FILLER_PHRASES)) for (const p of list) expect(p.startsWith('^'), p).toBe(false);
    const toks = tokenize('how far bros, abeg send am');
    // "bros" addresses someone ("~" tag): a filler, no greeting that asks after them.
    expect([...greetingIndices(toks)]).toEqual([0, 1]);
    expect(fillerIndices(toks).has(2)).toBe(true);
    // "abeg" is a filler, not a greeting.
    expect(fillerIndices(toks).has(4)).toBe(true);
    expect(greetingIndices(toks).has(4)).toBe(false);
  });

  it('a run of fillers closed by "?" is a greeting sentence only with a greeting phrase, as before', () => {
    const lead = (s: string) => {
      const toks = tokenize(s);
      return greetingLead(toks, fillerIndices(toks)).size;
    };
    expect(lead('oi! tudo bem? manda 150 pra @joana')).toBeGreaterThan(0);
    expect(lead('how far bros. make you send 5k')).toBeGreaterThan(0);
    expect(lead('pls ? transfer 40 usd to @yawboat')).toBe(0);
    expect(lead('faz ? um pix de 10 pra @joana')).toBe(0);
    // Changed on purpose: "sasa hivi" is "right now", no greeting; "sasa hivi?" asks something (was a greeting by its word "sasa").
    expect(lead('sasa hivi? tuma 300 kwa @zawadi')).toBe(0);
    expect(lead('sasa? tuma 300 kwa @zawadi')).toBeGreaterThan(0);
    // Changed on purpose (the property test's draw, flaky on main): a word that only calls someone, closed by
    // "?", asks nothing of them; the "?" before the arguments holds the turn.
    expect(lead('bhai ? @priya ko 2k bhej do jab time mile')).toBe(0);
    expect(lead('bro? send 5k to @amaka')).toBe(0);
    expect(lead('bro, send 5k to @amaka')).toBeGreaterThan(0);
    expect(lead('how far bros? send 5k to @amaka')).toBeGreaterThan(0);
  });
});
