/**
 * The merchant's redirect URL with `payment_id` and `status` set, as the payer is sent back.
 *
 * Built with WHATWG `URL` and `searchParams.set` (which replaces a parameter already there and
 * re-serialises the query), that cost about 0.3 ms per settle answer (twice: the view's
 * `returnUrl` and the answer's `redirect`; docs/performance.md, issue 23 seventh round). The URL
 * is the same for every payment of a merchant, so it is serialised once per redirect URL with
 * two placeholders, and each answer fills them in. Only values that form-encoding leaves as
 * they are (letters, digits, `_ . -`: payment ids and statuses) are filled in; anything else,
 * or a URL where a placeholder is not found exactly once, goes the `URL` way, so the string is
 * the same either way (test/checkout-sessions/redirect-url.unit.test.ts).
 */

const ID_MARK = 'zQpaymentIdMark7q';
const STATUS_MARK = 'zQstatusMark7q';
const PLAIN = /^[A-Za-z0-9_.-]*$/;
const TEMPLATES_MAX = 1_000;

interface Template {
  /** The serialised URL around the two values, in their order in it. */
  parts: [string, string, string];
  idFirst: boolean;
}

const templates = new Map<string, Template | null>();

/** `redirectUrl` with `payment_id=id` and `status` set; throws as `new URL` does on a bad URL. */
export function redirectUrlFor(redirectUrl: string, id: string, status: string): string {
  if (PLAIN.test(id) && PLAIN.test(status)) {
    let t = templates.get(redirectUrl);
    if (t === undefined) {
      t = template(redirectUrl);
      if (templates.size >= TEMPLATES_MAX) templates.clear();
      templates.set(redirectUrl, t);
    }
    if (t) return t.idFirst ? t.parts[0] + id + t.parts[1] + status + t.parts[2] : t.parts[0] + status + t.parts[1] + id + t.parts[2];
  }
  return viaUrl(redirectUrl, id, status);
}

function viaUrl(redirectUrl: string, id: string, status: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('payment_id', id);
  url.searchParams.set('status', status);
  return url.toString();
}

/** The URL serialised around the placeholders, or null (use `URL` each time). */
function template(redirectUrl: string): Template | null {
  let s: string;
  try {
    s = viaUrl(redirectUrl, ID_MARK, STATUS_MARK);
  } catch {
    return null;
  }
  const i = s.indexOf(ID_MARK);
  const j = s.indexOf(STATUS_MARK);
  if (i < 0 || j < 0 || i !== s.lastIndexOf(ID_MARK) || j !== s.lastIndexOf(STATUS_MARK)) return null;
  const [a, aLen, b, bLen] = i < j ? [i, ID_MARK.length, j, STATUS_MARK.length] : [j, STATUS_MARK.length, i, ID_MARK.length];
  if (a + aLen > b) return null;
  return { parts: [s.slice(0, a), s.slice(a + aLen, b), s.slice(b + bLen)], idFirst: i < j };
}
