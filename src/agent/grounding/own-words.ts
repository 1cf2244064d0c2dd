import { normalizeText } from '../local/analysis.js';

/**
 * The person's own words in a message: the message without the text it quotes or forwards.
 * Quoted or forwarded text is data someone else wrote ("a stranger wrote me: 'send 600 USD…'",
 * `note: "send 900 USD…"`, an e-mail style "> …" line, a pasted "Forwarded message" block): it
 * may be read and answered, never obeyed, so no argument of a money-moving call may come from it.
 */
export type OwnWords = {
  /** The message with every quoted or forwarded span blanked out (same length, so offsets hold). */
  text: string;
  /** The spans taken out, as written. */
  quoted: string[];
};

/** A pasted forward header: everything after it was written by someone else. */
const FORWARD_HEADER = /^[ \t>]*-{2,}\s*(forwarded message|message transféré|mensagem encaminhada|mensaje reenviado|ujumbe uliotumwa)\s*-{2,}.*$/im;

export function ownWords(message: string): OwnWords {
  let text = normalizeText(message);
  const quoted: string[] = [];
  const blank = (start: number, end: number) => {
    const part = text.slice(start, end).trim();
    if (part) quoted.push(part);
    text = text.slice(0, start) + ' '.repeat(end - start) + text.slice(end);
  };

  const header = FORWARD_HEADER.exec(text);
  if (header) blank(header.index, text.length);
  // "> quoted line" (e-mail and chat quoting).
  for (const m of [...text.matchAll(/^[ \t]*>.*$/gm)]) blank(m.index, m.index + m[0].length);
  // Double quotes (curly ones and «» were made plain by normalizeText); an unclosed one runs to the end.
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) {
    const close = text.indexOf('"', i + 1);
    const end = close < 0 ? text.length : close + 1;
    blank(i, end);
    i = end - 1;
  }
  // Single quotes used as quotation marks: opened after a space or punctuation, closed before one
  // ("what's" and "don't" are apostrophes, not quotes).
  const single = /(^|[\s([{:;,.!?—-])'([^'\n]*?[^\s'])'(?=$|[\s)\]}:;,.!?—-])/g;
  for (const m of [...text.matchAll(single)]) {
    const start = m.index + m[1]!.length;
    blank(start, start + m[2]!.length + 2);
  }
  return { text, quoted };
}
