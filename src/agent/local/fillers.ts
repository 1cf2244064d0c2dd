import type { Token } from './tokenize.js';
import { tokenize } from './tokenize.js';
import { fold } from './lexicon-i18n.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * The CLOSED, reviewed list of politeness and timing fillers of the eight corridor languages:
 * the only words, besides a reading's own roles (verb, amount, currency, recipient, purpose),
 * that a money-moving message may carry and still act at once (docs/agent.md, "The rule").
 *
 * A phrase here must mean nothing for what moves: no amount, no person, no time other than
 * "now / when you can", no condition on an event. "when you can" is politeness (the payment is
 * now); "when he pays" is a condition and is NOT here. To extend: add the phrase as people
 * write it (accents and case do not matter), add a message using it to the agent eval, and
 * check that the property test (test/agent/local-reading.property.unit.test.ts) still passes.
 *
 * A phrase written with a leading "^" greets someone, asking after them ("^how far", "^tudo bem",
 * "^habari"); one with a leading "~" addresses someone ("~bro", "~bhai", "~oga"): see `greetingLead`.
 * The tag is no part of the phrase.
 */
const FILLERS: Readonly<Record<string, readonly string[]>> = wordTable({
  en: [
    'please', 'pls', 'plz', 'plis', 'pleeease', 'kindly', 'thanks', 'thank you', 'thank u', 'thanks a lot', 'thx', 'ty', 'tnx', 'cheers',
    'thanks so much', 'thank you so much', 'thanks very much', 'thank you very much', 'many thanks', 'much appreciated',
    'asap', 'now', 'right now', 'rn', 'quick', 'quickly', 'urgently', 'urgent', 'today',
    'when you can', 'when u can', 'whenever you can', 'whenever u can', 'when you get a chance', 'when you have a moment', 'if you can', 'if u can', 'if possible',
    '^hey', '^hi', '^hello', '~yo', 'ok', 'okay', '~bro', '~sis', '~boss', '~mate', '~fam', '~dear', '~sir', '~madam', '~man', '~my guy', '~my friend', '~oh',
    // Ghana and South Africa: "chale", "bru", "boet".
    '~chale', '~chaley', '~charley', '~bru', '~my bru', '~boet', '~bra', '~my bra',
    'can you', 'could you', 'would you', 'can u', 'could u', 'help me', 'i want', 'will you', 'would you mind', 'can you help me', 'could you help me', 'would you be able to', 'are you able to', 'i want to', 'i wanna', 'i need to', 'go ahead and', 'just',
    // Voice-note openers and closers: "ok so umm… send…", "…, that's all".
    // Dictated punctuation of a voice note read back as words: "… to @rico please full stop".
    'full stop', 'fullstop',
    'so', 'umm', 'um', 'uh', 'uhm', 'ehm', 'erm', 'yeah', 'thats all', "that's all", 'thats it', "that's it",
    'god bless', 'god bless you', 'bless', 'eeh', 'eh', 'aah', 'get me', 'can i get', 'need to', 'i need', 'from my wallet', 'from my account', 'from my balance',
    // Issue h13: a greeting before the request, with a time of day that names no time for the payment.
    '^good morning', '^good afternoon', '^good evening', '^gm', '^hope you are well', "^hope you're well", '^hope ur well', '^hope all is well', '^hope your day is going well', '^hope ur day is going well',
  ],
  pcm: ['abeg', 'biko', 'jare', 'o', 'oo', 'ooo', 'sharp sharp', 'sharp', 'now now', '~my person', '~oga', '~bros', 'na', 'make you', 'you fit', 'abeg you fit', 'you go fit', 'i wan', 'i wan make you', 'i want make you', 'help me', 'e dey urgent', 'e urgent', 'na urgent', 'quick quick', 'fast fast', 'abeg na', 'chairman', 'my g', 'oya', 'abeg o', 'biko o', '^how far', '^how body', '^how you dey', '^good morning o', '^how una dey', 'una well done', '~my padi', '~my paddy', 'i beg', 'i wan beg', 'make una', 'una fit', 'abeg make una'],
  sw: [
    'tafadhali', 'tafadhalini', 'tafadhari', 'naomba', 'nakuomba', 'asante', 'asante sana', 'ahsante', 'shukran', '^sasa', 'sasa hivi', 'haraka', 'upesi',
    'ukipata time', 'ukipata nafasi', 'ukipata muda', 'ukiweza', '~bana', '~buda', '~msee', 'nisaidie', 'saidia', '~boss',
    // "I want to / I'd like to" before the verb: "nataka kutuma", "ningependa kulipa".
    'nataka', 'ningependa',
    // Blessings and interjections that close or open a voice-note: "…, Mungu akubariki", "eeh boss…".
    'mungu akubariki', 'mungu akubariki sana', '^mungu akubariki boss', 'ubarikiwe', 'barikiwa', 'eeh', 'aah', 'ehe',
    // A polite question's opener: "unaweza kutuma…?", "mnaweza…", "ungeweza…".
    'unaweza', 'mnaweza', 'ungeweza', 'waweza', 'unaweza kunisaidia',
    // Greetings before the request: "Habari, naomba…", "mambo boss…".
    '^habari', '^habari yako', '^habari za asubuhi', '^habari ya asubuhi', '^habari za mchana', '^habari za jioni', '^hujambo', '^mambo', '^niaje', '^sasa boss',
    // "ok" before or after the request: "eeh sawa, tuma…", "sawa basi" (never "sawa" alone: "kiasi sawa" is "the same amount").
    'eeh sawa', 'ok sawa', 'sawa basi', 'sawa sawa', '~sawa boss',
  ],
  fr: [
    'stp', 'svp', "s'il te plaît", "s'il te plait", "s'il vous plaît", "s'il vous plait", 'merci', 'merci beaucoup', 'quand tu peux', 'quand tu pourras',
    'quand vous pouvez', 'dès que possible', 'des que possible', 'vite', 'rapidement', 'maintenant', 'tout de suite', 'peux-tu', 'peux tu', 'tu peux',
    'pouvez-vous', 'pouvez vous', 'pourrais-tu', 'pourrais tu', '^bonjour', '^salut', '^coucou', 'je veux', 'je voudrais', 'stp merci', '~frère', '~frérot', '~ma sœur',
    'je mise', 'je parie', 'fais', 'fais un', 'fais-moi', 'fais moi', "merci d'avance",
    'vous pouvez', 'tu pourrais', 'vous pourriez', 'pourriez-vous', 'pourriez vous', 'est-ce que tu peux', 'est-ce que vous pouvez', "j'aimerais", 'je souhaite',
    // Greetings and well-wishing before the request: "Bonjour, j'espère que vous allez bien. Envoyez…".
    '^bonsoir', "j'espère que vous allez bien", "j'espère que tu vas bien", "j'espere que vous allez bien", "j'espere que tu vas bien", 'bonne journée', 'bonne journee',
    // Chat spellings of the greetings ("slt ça va ?", "bjr"), and a polite "if you can" that asks the agent's ability, no event.
    '^slt', '^bjr', '^bsr', '^cc', '^ça va', '^ca va', 'si tu peux', 'si vous pouvez', 'si possible', 'si tu veux bien',
  ],
  pt: [
    'por favor', 'pfv', 'pf', 'pfvr', 'pls', 'obrigado', 'obrigada', 'valeu', 'vlw', 'brigado', 'quando puder', 'quando der', 'quando você puder',
    'quando voce puder', 'assim que puder', 'agora', 'rapidinho', '^oi', '^olá', '^ola', '~mano', '~mana', 'você pode', 'voce pode', 'pode', 'consegue', 'faz um', 'faz',
    'aí', 'ai', 'poderia', 'você poderia', 'voce poderia', 'pode me fazer o favor de', 'tem como', 'dá pra', 'da pra', 'quero', 'queria',
    // Greetings before the request: "Oi! Tudo bem? Manda…", "bom dia, …".
    '^tudo bem', '^tudo bom', '^bom dia', '^boa tarde', '^boa noite', '^beleza', '^blz',
    // Mozambican and Angolan "faz favor" (please); "if you can" asking the agent's ability, no event.
    'faz favor', 'se faz favor', 'se puder', 'se você puder', 'se voce puder', 'se possível', 'se possivel', '^e aí', '^e ai', '^eai',
  ],
  es: [
    'por favor', 'porfa', 'porfis', 'plis', 'gracias', 'muchas gracias', 'cuando puedas', 'cuando tengas chance', 'cuando tengas tiempo', 'cuando se pueda',
    'ahorita', 'ahora', '~oye', '^hola', '~compa', '~carnal', '~wey', '~güey', 'puedes', 'podrías', 'podrias', 'me haces el favor de', 'hazme el favor de',
    'xfa', 'xfavor', 'x favor', 'hazme', 'haz', 'me puedes', 'me podrías', 'me podrias', 'puede', 'podría', 'podria', 'me ayudas a', 'ayúdame a', 'ayudame a', 'quiero', 'quisiera',
    // Greetings and polite frames before the request: "Buenas tardes. Le pido de favor enviar…".
    '^buenos días', '^buenos dias', '^buen día', '^buen dia', '^buenas tardes', '^buenas noches', '^buenas', 'le pido de favor', 'te pido de favor', 'le pido', 'te pido', 'de favor',
    // "por fa" (porfa, written apart), "qué onda" / "qué tal" greetings, and a polite "if you can".
    'por fa', '^qué onda', '^que onda', '^qué tal', '^que tal', 'si puedes', 'si se puede', 'si es posible',
  ],
  hi: [
    'please', 'plz', '~bhai', '~yaar', '~bhaiya', '~didi', '~ji', 'jaldi', 'abhi', 'abhi ke abhi', 'jab time mile', 'jab time ho', 'jab free ho', 'dhanyavaad',
    'shukriya', 'thanks', 'na', 'zara', 'kar do', 'kar dena', 'kar dijiye', 'kardo', 'do', 'dena', 'de do', 'hai', 'karna hai', 'kar', 'dijiye',
    // A polite question: "kya aap … bhej sakte ho?", "… kar sakte hain?".
    'kya aap', 'kya tum', 'aap', 'sakte ho', 'sakte hain', 'sakti ho', 'sakti hain', 'sakoge', 'sakogi', 'sakenge',
    // Greetings before the request: "Namaste bhai, …".
    '^namaste', '^namaskar', '^suprabhat', '^ram ram',
    // "do me a favour" and "if possible" before the request: "bhai ek kaam kar do, …", "agar ho sake to …".
    'ek kaam kar do', 'ek kaam karo', 'agar ho sake', 'agar ho sake to', 'agar ho sake toh',
  ],
  tl: [
    'po', 'naman', 'nga', 'paki', 'salamat', 'salamat po', 'pag may time ka', 'kapag may time ka', 'pag may oras ka', 'kapag may oras ka', 'pag free ka',
    // "taya ako 200 sa Yes": "I bet", the writer's own stake asked of the agent, like French "je parie".
    'taya ako', 'pusta ako', 'tataya ako', 'pupusta ako',
    'ngayon', 'ngayon na', 'agad', '~bes', '~beshie', '~te', '~kuya', '~ate', 'mo', 'ka', 'sana', 'pakisuyo', 'please lang', 'lang',
    // A polite question's opener: "pwede mo bang i-send…?", "puwede po bang…?".
    'pwede mo bang', 'pwede mo ba', 'pwede nyo bang', 'pwede nyo ba', 'pwede niyo bang', 'pwede po bang', 'pwede po ba', 'puwede mo bang', 'puwede po bang', 'pwede mo', 'pwede po',
    // Greetings before the request: "magandang umaga po, …".
    '^magandang umaga', '^magandang hapon', '^magandang gabi', '^kumusta', '^kamusta', '^musta',
    // "if you can" asking the agent's ability: "kung pwede", "kung kaya mo".
    'kung pwede', 'kung puwede', 'kung pwede po', 'kung kaya mo',
  ],
});

/** Emoji that say "I am joking": a message carrying one is not acted on at once. */
const JOKE_EMOJI = /[\u{1F602}\u{1F923}\u{1F606}\u{1F605}\u{1F61C}\u{1F61D}\u{1F643}\u{1F92A}\u{1F60F}\u{1F609}]/u;
/**
 * Emoji that say no, stop or "not sure" (❌ ❎ 🚫 ⛔ 🛑 🙅 ✋ 🤔 🤨 🧐 🙄 ❓ ❔): after "send 5000 to @amaka ❌" the
 * request is not plainly meant, so they are no fillers and the reading holds (lead, sixteenth round).
 */
const DOUBT_EMOJI = /[\u{274C}\u{274E}\u{1F6AB}\u{26D4}\u{1F6D1}\u{1F645}\u{270B}\u{1F914}\u{1F928}\u{1F9D0}\u{1F644}\u{2753}\u{2754}]/u;

/** The tags of a phrase that greets someone, and of one that addresses someone. */
const GREETING_TAG = '^';
const ADDRESS_TAG = '~';
const untagged = (p: string) => (p.startsWith(GREETING_TAG) || p.startsWith(ADDRESS_TAG) ? p.slice(1) : p);
const normsOf = (p: string) => tokenize(p).filter((t) => t.kind === 'word').map((t) => fold(t.norm));

/** Phrases that greet someone (asking after them), as their joined norms (tagged in any language). */
const GREETING_KEYS: ReadonlySet<string> = new Set(
  Object.values(FILLERS)
    .flat()
    .filter((p) => p.startsWith(GREETING_TAG))
    .map((p) => normsOf(untagged(p)).join(' ')),
);

/** Phrases that address someone ("bro", "boss", "bhai"), as their joined norms. */
const ADDRESS_KEYS: ReadonlySet<string> = new Set(
  Object.values(FILLERS)
    .flat()
    .filter((p) => p.startsWith(ADDRESS_TAG))
    .map((p) => normsOf(untagged(p)).join(' ')),
);
/** Possessives before a noun: "my boss", "his bro", "mon pote", "meri didi". After one, the noun is a person talked about, not called. */
const POSSESSIVES = new Set(['my', 'his', 'her', 'our', 'their', 'your', 'mon', 'ma', 'son', 'sa', 'mi', 'su', 'meu', 'minha', 'seu', 'sua', 'mera', 'meri', 'mere', 'uska', 'uski', 'im', 'dem']);

/** Every phrase as folded token norms, longest first, so "thank you" wins over "thank". */
const PHRASES: readonly (readonly string[])[] = [...new Set(Object.values(FILLERS).flat().map(untagged))]
  .map(normsOf)
  .filter((p) => p.length > 0)
  .sort((x, y) => y.length - x.length);

/** The phrases by their first word, each list still longest first (a word is compared only with the phrases it can start). */
const PHRASES_BY_FIRST: ReadonlyMap<string, readonly (readonly string[])[]> = (() => {
  const out = new Map<string, (readonly string[])[]>();
  for (const p of PHRASES) {
    const list = out.get(p[0]!) ?? [];
    list.push(p);
    out.set(p[0]!, list);
  }
  return out;
})();

/** The closed list itself, for docs and tests: language -> phrases. */
export const FILLER_PHRASES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(Object.entries(FILLERS).map(([lang, list]) => [lang, list.map(untagged)]));

/**
 * Indices of tokens that are fillers: words of a listed phrase (matched as a whole), and emoji
 * other than the joking ones. Nothing else; in particular never a number, a handle or a quote.
 */
export function fillerIndices(tokens: readonly Token[]): Set<number> {
  return matchFillers(tokens).all;
}

/** Indices of the words of a greeting phrase ("how una dey", "tudo bem", "habari"), as matched among the fillers. */
export function greetingIndices(tokens: readonly Token[]): Set<number> {
  return matchFillers(tokens).greets;
}

function matchFillers(tokens: readonly Token[]): { all: Set<number>; greets: Set<number> } {
  const all = new Set<number>();
  const greets = new Set<number>();
  const norms = tokens.map((t) => (t.kind === 'word' ? fold(t.norm) : undefined));
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'symbol') {
      if (!JOKE_EMOJI.test(t.text) && !DOUBT_EMOJI.test(t.text)) all.add(i);
      continue;
    }
    if (all.has(i) || norms[i] === undefined) continue;
    for (const p of PHRASES_BY_FIRST.get(norms[i]!) ?? []) {
      if (p.every((w, k) => norms[i + k] === w)) {
        // "my boss put 50 on…", "his bro sent…": a person talked about (the subject), never a call to the agent.
        if (ADDRESS_KEYS.has(p.join(' ')) && POSSESSIVES.has(norms[i - 1] ?? '')) break;
        const greeting = GREETING_KEYS.has(p.join(' '));
        for (let k = 0; k < p.length; k++) {
          all.add(i + k);
          if (greeting) greets.add(i + k);
        }
        break;
      }
    }
  }
  return { all, greets };
}

/**
 * The greeting sentences that open a message ("Oi! Tudo bem? Manda…", "How far bros. Make you send…"):
 * runs of filler words each closed by ". ! ? ,", from the first token. Their indices, marks included;
 * a question mark among them asks after the person, never about the payment. A run not closed by a
 * mark ("kya aap 500 bhej sakte ho?") is no greeting sentence.
 */
export function greetingLead(tokens: readonly Token[], fillers: ReadonlySet<number>): Set<number> {
  const out = new Set<number>();
  // A run of fillers closed by "?" is a greeting sentence only with a phrase that greets someone: "pls ? send…",
  // "faz ? um pix…" ask nothing of anyone, and "bhai ? @priya ko…" only calls someone (the property test found all three).
  const greets = greetingIndices(tokens);
  let i = 0;
  for (;;) {
    let j = i;
    while (j < tokens.length && fillers.has(j) && tokens[j]!.kind === 'word') j++;
    if (j === i || tokens[j]?.kind !== 'punct' || !['.', '!', '?', ','].includes(tokens[j]!.text)) return out;
    const words = j;
    while (tokens[j]?.kind === 'punct' && ['.', '!', '?', ','].includes(tokens[j]!.text)) j++;
    // "pls ? transfer 40 usd…": a question that greets or addresses nobody is no greeting sentence.
    const asks = tokens.slice(words, j).some((t) => t.text === '?');
    if (asks && !tokens.slice(i, words).some((_, k) => greets.has(i + k))) return out;
    for (let k = i; k < j; k++) out.add(k);
    i = j;
  }
}
