/**
 * A small cross-language word map for finding a market by words of its question: a person writes
 * "soko la mvua Nairobi" for "Will it rain in Nairobi on Saturday?", "le marché de la pluie à
 * Lagos", "baarish wala market". Each row is one meaning in the eight corridor languages (folded:
 * lower case, no accents). Proper nouns, numbers, team and place names need no row: they are
 * written the same in every language (or folded the same: "Sénégal" = "senegal"), and rows here
 * only cover the common words that market questions are made of, plus country names that differ.
 */
const ROWS: readonly (readonly string[])[] = [
  ['rain', 'raining', 'rains', 'mvua', 'inanyesha', 'pluie', 'pleuvoir', 'pleut', 'pleuvra', 'chuva', 'chover', 'chove', 'lluvia', 'llover', 'llueva', 'llovera', 'baarish', 'barish', 'barsaat', 'ulan', 'uulan', 'umulan'],
  ['win', 'wins', 'won', 'winning', 'champion', 'champions', 'campeao', 'campeon', 'campeonato', 'bingwa', 'champ', 'shinda', 'itashinda', 'atashinda', 'gagner', 'gagne', 'gagnera', 'ganhar', 'ganha', 'ganhara', 'ganar', 'gana', 'ganara', 'jeet', 'jeetega', 'jeetegi', 'jeetenge', 'manalo', 'mananalo', 'panalo'],
  ['election', 'elections', 'uchaguzi', 'election', 'elections', 'eleicao', 'eleicoes', 'eleccion', 'elecciones', 'chunav', 'halalan', 'eleksyon'],
  ['league', 'ligi', 'ligue', 'liga'],
  ['cup', 'kombe', 'coupe', 'copa', 'taca'],
  ['world', 'dunia', 'monde', 'mundo', 'mundial', 'duniya', 'vishwa'],
  ['match', 'game', 'mechi', 'jogo', 'partido', 'laro', 'laban'],
  ['price', 'bei', 'prix', 'preco', 'precio', 'daam', 'keemat', 'presyo'],
  ['fuel', 'petrol', 'gas', 'mafuta', 'essence', 'carburant', 'gasolina', 'combustivel', 'combustible', 'gasolina'],
  ['woman', 'mwanamke', 'femme', 'mulher', 'mujer', 'aurat', 'mahila', 'babae'],
  ['season', 'msimu', 'saison', 'temporada', 'season', 'sizan'],
  ['friday', 'ijumaa', 'vendredi', 'sexta', 'viernes', 'shukravar', 'biyernes'],
  ['saturday', 'jumamosi', 'samedi', 'sabado', 'shanivar', 'sabado'],
  ['sunday', 'jumapili', 'dimanche', 'domingo', 'ravivar', 'linggo'],
  ['brazil', 'brasil', 'bresil', 'brazili'],
  ['mexico', 'mexique', 'meksiko'],
  ['philippines', 'pilipinas', 'filipinas'],
  ['japan', 'japon', 'japao', 'hapon', 'japani'],
  ['india', 'inde', 'bharat', 'uhindi'],
  ['england', 'angleterre', 'inglaterra', 'uingereza'],
  // Nicknames a market is called by in the corridors: a country's or club's, one word each.
  ['nigeria', 'naija', 'naijeria'],
  ['senegal', 'lions', 'teranga'],
  ['flamengo', 'mengao', 'mengo', 'fla'],
  ['america', 'aguilas', 'americanistas'],
  ['arsenal', 'gunners'],
  ['bbnaija', 'bbn'],
];

const MEANING = new Map<string, string>();
for (const row of ROWS) for (const w of row) MEANING.set(w, row[0]!);

/** The word's meaning across languages ("mvua" and "pluie" -> "rain"), or the word itself. */
export function meaningOf(word: string): string {
  return MEANING.get(word) ?? word;
}

/**
 * Nicknames of several words (folded, one space between words) and the name they stand for: a
 * reference holding one ("Men in Blue wale market") matches the question by that name.
 */
export const PHRASE_NICKNAMES: ReadonlyArray<readonly [string, string]> = [
  ['men in blue', 'india'],
  ['super eagles', 'nigeria'],
  ['black stars', 'ghana'],
  ['harambee stars', 'kenya'],
  ['bafana bafana', 'south africa'],
  ['lions of teranga', 'senegal'],
  ['lions de la teranga', 'senegal'],
  ['el tri', 'mexico'],
];

/** The reference with each multi-word nickname replaced by its name ("Men in Blue" -> "india"). */
export function withNicknamesNamed(foldedWords: readonly string[]): string[] {
  let text = ` ${foldedWords.join(' ')} `;
  for (const [phrase, name] of PHRASE_NICKNAMES) text = text.split(` ${phrase} `).join(` ${name} `);
  return text.trim().split(' ').filter(Boolean);
}
