/**
 * Hindi written in Devanagari, as people mix it with Roman script in one chat ("@priya को 500 रुपये
 * भेज दो", "मेरी पिछली transactions दिखाओ"). The engine's Hindi tables are Roman Hinglish; a
 * Devanagari word of this closed list is written the way the tables spell it, so it is read by
 * the same rules (verbs, negations, conditions, past tense, number and currency words). A word
 * not in the list stays as typed and is left unplaced: the reading is then incomplete and holds.
 */
const WORDS: Readonly<Record<string, string>> = {
  // Verbs that move money, show, make, put.
  भेजो: 'bhejo', भेज: 'bhej', भेजना: 'bhejna', भेजिए: 'bhejiye', भेजिये: 'bhejiye', भेजदो: 'bhejdo', भेजें: 'bhejiye',
  भरो: 'bharo', भर: 'bhar', खरीदो: 'kharido', लगाओ: 'lagao', लगा: 'laga', रखो: 'rakho', डालो: 'daalo', डाल: 'daal',
  दिखाओ: 'dikhao', दिखा: 'dikha', बताओ: 'batao', बता: 'bata', बनाओ: 'banao', बना: 'bana', दो: 'do', दे: 'de', करो: 'karo', कर: 'kar',
  // Past and future forms, so the gate reads them as in Roman script.
  भेजा: 'bheja', भेजे: 'bheje', भेजी: 'bheji', दिया: 'diya', किया: 'kiya', चुका: 'chuka', चुकी: 'chuki', था: 'tha', थी: 'thi',
  भेजूंगा: 'bhejunga', भेजूँगा: 'bhejunga', भेजूंगी: 'bhejungi', दूंगा: 'dunga', दूँगा: 'dunga', दूंगी: 'dungi',
  // Function words, negations, conditions, questions, time.
  को: 'ko', का: 'ka', की: 'ki', के: 'ke', से: 'se', में: 'mein', पे: 'pe', पर: 'par', और: 'aur', है: 'hai', हैं: 'hain',
  मत: 'mat', नहीं: 'nahi', ना: 'na', अगर: 'agar', जब: 'jab', तो: 'toh', क्या: 'kya', कितना: 'kitna', कितने: 'kitne', कितनी: 'kitni',
  कल: 'kal', आज: 'aaj', अभी: 'abhi', पहले: 'pehle', मैंने: 'maine', मैं: 'main', मुझे: 'mujhe', मेरा: 'mera', मेरी: 'meri', मेरे: 'mere',
  बोला: 'bola', कहा: 'kaha', प्लीज़: 'please', प्लीज: 'please', कृपया: 'please',
  // Money, numbers, nouns.
  रुपये: 'rupaye', रुपए: 'rupaye', रुपया: 'rupaye', रु: 'rs', पैसे: 'paise', सौ: 'sau', हज़ार: 'hazaar', हजार: 'hazaar', लाख: 'lakh', करोड़: 'crore',
  बैलेंस: 'balance', खाता: 'khata', लिंक: 'link', बिल: 'bill', मार्केट: 'market', रिचार्ज: 'recharge',
};

/** Keyed as the text reaches them, after NFKC (a nukta letter such as "ज़" is decomposed by it). */
const BY_NFKC: ReadonlyMap<string, string> = new Map(Object.entries(WORDS).map(([w, r]) => [w.normalize('NFKC'), r]));

/** One run of Devanagari letters, in Roman Hinglish when it is a listed word. */
export function romanizeHindiWord(word: string): string {
  return BY_NFKC.get(word) ?? word;
}
