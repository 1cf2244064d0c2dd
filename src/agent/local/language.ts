/**
 * Which of the corridors' languages a message is written in: English, Nigerian Pidgin,
 * Swahili/Sheng, French, Portuguese, Spanish, Hindi-English and Taglish. Marker words
 * score each language; English wins ties and messages without markers. The result picks
 * the word tables (verbs, negations, number words) and the language of the reply.
 */

export type Lang = 'en' | 'pcm' | 'sw' | 'fr' | 'pt' | 'es' | 'hi' | 'tl';
export const LANGS: readonly Lang[] = ['en', 'pcm', 'sw', 'fr', 'pt', 'es', 'hi', 'tl'];

/** Words that point at a language; 2 points for words no other corridor language uses. */
const MARKERS: Readonly<Record<Exclude<Lang, 'en'>, Readonly<Record<string, number>>>> = {
  pcm: weights(
    'abeg wetin dey una wahala abi sef jare comot shey sabi oya wey dis dat dem chop pikin naija ehn wahala oo ooo biko nna abi owo ego kobo wan oga chops ebi dash',
    'don no fit go make na am e',
  ),
  sw: weights(
    'tuma nitumie mtumie tumia tumie pesa salio ngapi kiasi lipa lipia nunua nunulia nataka naomba tafadhali asante sana yangu wangu kwenye elfu mia laki shilingi kesho jana leo usitume usilipe usinunue sitaki hapana ndio niaje sasa msee soko bei rafiki mama yake yako hii hizo gani nini nimetuma nilituma alinitumia amenitumia nimelipa nililipa akaunti kutoka tatu mbili moja tano nne sita saba nane tisa kumi ishirini thelathini arobaini hamsini mwezi wiki ombi malipo unda onyesha weka beti ndiyo hakuna mbao thao ashu doh bob mpesa nipe mpe tuma nilipie stima umeme bando futa ile mwisho mambo vipi habari hana bado ngoja niwekee',
    'kwa ya na wa za la si',
  ),
  fr: weights(
    "fais faites environ envoie envoyer envoyez envoies combien solde payer paie payez acheter achète achete facture merci plait stp svp avec mille deux trois cinq quatre vingt cent marché pari parier crée créer créez lien paiement demande mon mes ton votre je tu vous nous hier demain déjà pas jamais ne compte mari femme frère pour recharge crédit forfait montre affiche ouverts historique dernières reçu reçoit rembourse rembourser remboursez mets mettez mettre mise misez miser oui bonjour bonsoir salut annule attends ça",
    'le la les de du des un une au à est que si sur',
  ),
  pt: weights(
    'pagamento faz faça faca uns umas pro pros compra recarrega reais conto contos pila duzentos duzentas trezentos quatrocentos seiscentos setecentos oitocentos novecentos envia enviar envie manda mandar mande pra você voce não nao obrigado obrigada quanto meu minha saldo pagar pague comprar recarga conta boleto pix mil dois duas três tres cinco vinte cem cento quinhentos aposta apostar mercado crie criar cobrança cobrar ontem amanhã amanha já marido mulher irmão mostra mostrar abertos histórico extrato paguei mandei enviei recebe reembolse devolveu paga luz contador estorna estorno coloca bota põe sim desfaz desfazer isso aí tudo bem oi olá pera beleza',
    'para o a os as de do da um uma e é se no na em',
  ),
  es: weights(
    'pago pagos unos unas hazme haz hazle hágame hagame enlace cóbrale cobrale compra mercados hay qué transfiere transfiera pesos pesitos hasta doscientos doscientas trescientos cuatrocientos seiscientos setecientos ochocientos novecientos envía envia enviar envíale mándale mandale manda mandar quiero puedes cuánto cuanto saldo pagar paga comprar recarga gracias mil dos tres cinco veinte cien ciento quinientos apuesta apostar mercado crea crear cobrar cobro ayer mañana manana ya esposo esposa hermano cuenta muestra mostrar abiertos historial factura luz lana varos mi tu hola porfa favor todavia todavía mandes envies envíes pasale pásale recibe envié mandé pagué reembolsa reembolsale reembólsale devolvió apuéstale apuestale ponle métele metele enviarle mandarle apuestas muéstrame muestrame deshaz eso espera jefe dice buenas noches última',
    'para el la los las de del un una y es si no en a',
  ),
  hi: weights(
    'wale mein laga lagana karo pe bhejo bhej bhejna bhejdo bhejde bhejiye karo kardo hai hain mera meri mere mujhe kitna kitne paise rupaye rupay yaar bhai nahi mat sau hazaar hazar hajar lakh crore kya aaj jama bharo bhardo batao bata dikhao dikha abhi maine bheja bheje banao lagao agar pati patni wala wali waala diya liye chahiye kaise ho raha tha rakh rakho sakte sakti aap namaste namaskar ji woh',
    'ko ka ki ke se do ek',
  ),
  tl: weights(
    'padala ipadala magpadala pakipadala magkano bayad bayaran magbayad pakibayad load paload pakiload salamat piso hindi wag huwag yung ang lang ako ikaw mga libo daan sige naman po kay kina isang dalawang tatlong limang sandaan sanlibo bukas kahapon kung gawa gumawa ipakita pakita pusta taya pataya singil maningil paki pakisend asawa nanay tatay kuya ate nagpadala pinadala nagbayad binayaran ko mo pa ba pwede puwede bang ilagay kumusta musta teka mali pala huling siyang',
    'sa ng na si ni',
  ),
};

function weights(strong: string, weak: string): Record<string, number> {
  // No prototype: a word such as "constructor" or "toString" must score nothing.
  const out: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const w of weak.split(/\s+/).filter(Boolean)) out[w] = 1;
  for (const w of strong.split(/\s+/).filter(Boolean)) out[w] = 2;
  return out;
}

/** English words that, when present, make a weak marker ("no", "a", "do") count for nothing. */
const ENGLISH = new Set(
  'send the to my please pay buy what how much is for me and you can i want balance market bet link from of on with money'.split(' '),
);

/** Lower-case word forms of a message, accents kept ("envía", "não"). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{M}]+/u)
    .filter(Boolean);
}

/**
 * Chunks that are names, not words of a language: @handles, emails, URLs, ids and codes
 * ("pay_2oPg8IS4tzi08zpnoSS255Bk", "0x52…", "qt_…", "AH1234567"): anything with "@", "/", "_",
 * or letters and digits glued together. Their letters ("Pg", "IS", "ko", "na") must not vote.
 */
const NAME_CHUNK = /[@/_]|www\.|\p{L}\p{N}|\p{N}\p{L}/u;

/** The message's words that can belong to a language: its names and ids left out. */
function languageWords(text: string): string[] {
  return wordsOf(
    text
      .split(/\s+/)
      // "5k", "30k", "R450", "N5,000": an amount glued to its scale or currency is no word either.
      .filter((chunk) => !NAME_CHUNK.test(chunk))
      .join(' '),
  );
}

/**
 * Pidgin grammar in English words, 2 points each: "I wan send", "send 12k give @emeka", "send 100k
 * go @zawadi", "my oga talk say make I…", "I never decide", "no send am", "how much remain for my
 * account", "e go cost", "him never get", "sharp sharp", "na my tailor number", "na for the aso ebi",
 * "don send / don block" (the perfective). A message scored English by its words but written with
 * these is Pidgin, and is answered in Pidgin.
 */
const PIDGIN_PHRASES: readonly RegExp[] = [
  /\b(?:i|we|you|u)\s+wan\b/,
  /\b(?:send|transfer|dash)\b[^.!?]*\s(?:give|go|reach)\s+(?:[@+]|0\d|my\b|am\b)/,
  /\btalk\s+say\b/, /\bsay\s+make\b/, /\bmake\s+(?:i|we|una)\b/,
  /\b(?:i|him|she|e|we)\s+never\s+\w/,
  /\bno\s+(?:send|pay|buy|worry)\b/,
  /\bhow\s+much\s+(?:remain|dey|i\s+get|e\s+go)\b/, /\bremain\s+for\b/,
  /\be\s+(?:go|don|dey|be)\b/,
  /\bsharp\s+sharp\b/,
  /(?:^|[,.]\s*|\s)na\s+(?:my|for|joke|am|so|who|wetin)\b/,
  /\b(?:don|done)\s+(?:send|pay|block|finish|spoil|go|tay|reach|collect|receive)\b/,
  /\bfor\s+hand\b/,
  /\bhow\s+my\s+\w+\s+be\b/, /\bhow\s+much\s+be\b/, /\byou\s+be\b/,
  /\b(?:i|we|you|who|e)\s+go\s+(?:send|pay|buy|dash|put)\b/,
  /\bmake\s+(?:you|person|people)\b/, /\b(?:send|pay|give)\s+am\b/,
];

export function detectLanguage(text: string): Lang {
  return readLanguage(text).lang;
}

/**
 * The language a message shows it is written in, or undefined when nothing in it points at one
 * ("50", "ok", "@amina", "yes"): English only with an English word in it. A door that remembers
 * the person's language (Telegram's commands, which have no sentence of their own) keeps the last
 * one it knew instead of turning English on a bare amount.
 */
export function shownLanguage(text: string): Lang | undefined {
  const r = readLanguage(text);
  return r.lang !== 'en' || r.english > 0 ? r.lang : undefined;
}

function readLanguage(text: string): { lang: Lang; english: number } {
  // Devanagari is written, among the corridors' languages, only in Hindi ("@priya को 300 रुपये भेज दो").
  if (/[\u0900-\u097F]/u.test(text)) return { lang: 'hi', english: 0 };
  const words = languageWords(text);
  // "¿" and "¡" are written only in Spanish.
  const spanishMarks = /[¿¡]/.test(text) ? 2 : 0;
  const english = words.filter((w) => ENGLISH.has(w)).length;
  const scores = new Map<Lang, number>();
  for (const lang of LANGS) {
    if (lang === 'en') continue;
    const table = MARKERS[lang];
    let s = 0;
    const seen = new Set<string>();
    for (const w of words) {
      if (seen.has(w)) continue;
      seen.add(w);
      const p = table[w];
      if (p) s += p;
    }
    if (lang === 'pcm') {
      const lower = text.toLowerCase();
      s += 2 * PIDGIN_PHRASES.filter((re) => re.test(lower)).length;
    }
    scores.set(lang, lang === 'es' ? s + spanishMarks : s);
  }
  let best: Lang = 'en';
  let top = 0;
  for (const [lang, s] of scores) {
    if (s > top) {
      best = lang;
      top = s;
    }
  }
  // A message mostly in English with one stray word ("send 500 to my mama") stays English.
  const needed = Math.max(2, Math.ceil(english * 0.75) + 1);
  if (best === 'pcm') return { lang: top >= 2 && top >= needed - 1 ? 'pcm' : 'en', english };
  return { lang: top >= needed ? best : 'en', english };
}
