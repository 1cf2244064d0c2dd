import type { Token } from './tokenize.js';

/**
 * Messages that try to widen the engine's authority: act from someone else's funds, for
 * someone else, with a role it does not have, without its rules, or reveal secrets. These
 * are refused before any intent is scored, so no phrasing of them can become a tool call.
 */

export const REFUSAL_REPLY =
  "I can't do that. I only act for you, from your own wallet, within your limits, and every payment needs your confirmation. " +
  'I can send money, pay bills, run prediction markets, make payment links and show your balance.';

const OTHER_PARTY_KINDS: ReadonlySet<Token['kind']> = new Set(['account_id', 'mention', 'address', 'email', 'phone']);

/** Nouns that name a pot of money. */
const FUNDS_NOUNS = new Set([
  'account', 'acct', 'wallet', 'balance', 'funds', 'fund', 'card', 'treasury', 'escrow', 'pool', 'relayer', 'faucet',
  'float', 'vault', 'reserve', 'reserves', 'savings', 'money', 'stash', 'purse',
]);

const ROLES = new Set([
  'admin', 'administrator', 'root', 'superuser', 'sudo', 'operator', 'developer', 'dev', 'system', 'moderator',
  'mod', 'staff', 'support', 'god', 'bank', 'him', 'her', 'them', 'someone', 'somebody', 'another', 'anybody', 'anyone',
]);

/** Roles a user might claim to get more power ("I'm the admin"). */
const CLAIMED_ROLES = new Set(['admin', 'administrator', 'root', 'superuser', 'developer', 'dev', 'operator', 'staff', 'support', 'moderator', 'system', 'ceo', 'cto']);

const OVERRIDE_VERBS = new Set(['ignore', 'disregard', 'forget', 'override', 'bypass', 'skip', 'circumvent', 'disable']);
const RULE_NOUNS = new Set([
  'instruction', 'instructions', 'rule', 'rules', 'prompt', 'prompts', 'guardrail', 'guardrails', 'restriction', 'restrictions',
  'limit', 'limits', 'policy', 'policies', 'confirmation', 'confirmations', 'confirm', 'check', 'checks', 'verification', 'programming',
  'guideline', 'guidelines', 'safety', 'security', 'pin', 'otp', '2fa', 'approval', 'approvals', 'kyc', 'constraints',
]);
/** "raise my limit", "remove limits": changing one's own limits is not the user's to do. */
const LIMIT_VERBS = new Set(['raise', 'increase', 'remove', 'lift', 'drop', 'double', 'extend']);
const LIMIT_NOUNS = new Set(['limit', 'limits', 'cap', 'caps']);
const WITHOUT_NOUNS = new Set(['confirmation', 'confirming', 'confirm', 'approval', 'asking', 'verification', 'pin', 'otp', '2fa', 'checks', 'limits', 'limit']);

const SECRET_PHRASES = [
  'private key', 'secret key', 'api key', 'seed phrase', 'recovery phrase', 'mnemonic', 'system prompt', 'password', 'passwords',
  'env var', 'env vars', 'environment variable', 'environment variables', 'webhook secret', 'signing key', 'relayer key',
];

const PHRASES = [
  'on behalf of', 'in the name of', 'admin mode', 'developer mode', 'dev mode', 'god mode', 'debug mode', 'maintenance mode', 'jailbreak',
  'dan mode', 'you are now', 'from now on you', 'new instructions', 'pretend to be', 'previous instructions', 'prior instructions',
  'above instructions', 'earlier instructions', 'original instructions', 'you were told', 'you have been told', 'you were given',
  'forget everything', 'forget all', 'system override', 'admin override', 'override mode', 'safety override', 'ignore everything', 'ignore all', 'disregard everything', 'disregard all', 'pretend you are', 'impersonate',
  'switch account', 'switch accounts', 'switch to account', 'switch user', 'log in as', 'login as', 'sign in as', 'logged in as',
  'mint', 'print money', 'free money', 'set my balance', 'change my balance', 'increase my balance', 'edit my balance',
  'all users', 'all accounts', 'all wallets', 'every user', 'every account', 'every wallet', 'other users', 'everyones',
  'someone elses', 'somebody elses', 'other peoples', 'make me admin', 'make me an admin', 'give me admin', 'grant me',
  'admin access', 'admin rights', 'admin privileges', 'more permissions', 'root access',
];

/** Phrases split into words once, by their first word: a token is compared only with the phrases it can start. */
function byFirstWord(phrases: readonly string[]): ReadonlyMap<string, readonly (readonly string[])[]> {
  const out = new Map<string, string[][]>();
  for (const p of phrases) {
    const parts = p.split(' ');
    const list = out.get(parts[0]!) ?? [];
    list.push(parts);
    out.set(parts[0]!, list);
  }
  return out;
}
const PHRASES_BY_FIRST = byFirstWord(PHRASES);
const SECRETS_BY_FIRST = byFirstWord(SECRET_PHRASES);

export function detectRefusal(tokens: readonly Token[], lemmas: readonly string[]): boolean {
  const n = tokens.length;
  // A market question may talk about treasuries and reserves; only commands can draw on them.
  const isQuestion = tokens.some((t) => t.text === '?');
  const w = (i: number) => lemmas[i] ?? '';
  const phraseAt = (i: number, phrase: readonly string[]) => phrase.every((p, k) => tokens[i + k]?.norm === p);
  const startsOne = (i: number, index: ReadonlyMap<string, readonly (readonly string[])[]>) => index.get(tokens[i]!.norm)?.some((p) => phraseAt(i, p)) ?? false;

  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.kind === 'word' && (startsOne(i, PHRASES_BY_FIRST) || t.norm === 'sudo' || t.norm === 'behalf')) return true;
    if (startsOne(i, SECRETS_BY_FIRST)) return true;

    // "from acct_X", "from @bob", "from the company wallet", "from bob's account" (but not "from my wallet").
    if (t.norm === 'from' || (t.norm === 'out' && tokens[i + 1]?.norm === 'of')) {
      const j = t.norm === 'out' ? i + 2 : i + 1;
      const next = tokens[j];
      if (next && OTHER_PARTY_KINDS.has(next.kind)) return true;
      if (next && !isQuestion && next.norm !== 'my' && next.norm !== 'me' && next.norm !== 'mine') {
        for (let k = j; k < Math.min(n, j + 5); k++) {
          const word = tokens[k]!;
          if (word.kind === 'punct' && word.text !== "'" && word.text !== '’') break;
          if (FUNDS_NOUNS.has(word.norm)) return true;
        }
      }
    }
    // "as @bob", "as admin", "as an administrator", "as another user"
    if (t.norm === 'as') {
      let j = i + 1;
      if (['a', 'an', 'the', 'my'].includes(tokens[j]?.norm ?? '')) j++;
      const next = tokens[j];
      if (next && (OTHER_PARTY_KINDS.has(next.kind) || ROLES.has(next.norm))) return true;
    }
    // "I'm the admin", "i am a developer", "you are an admin now"
    const claim = t.norm === 'im' || t.norm === 'youre' ? 1 : (t.norm === 'i' && tokens[i + 1]?.norm === 'am') || (t.norm === 'you' && tokens[i + 1]?.norm === 'are') ? 2 : 0;
    if (claim) {
      let j = i + claim;
      if (tokens[j]?.norm === 'now') j++;
      if (['a', 'an', 'the', 'your'].includes(tokens[j]?.norm ?? '')) j++;
      if (CLAIMED_ROLES.has(tokens[j]?.norm ?? '')) return true;
    }
    // "ignore your previous instructions", "bypass the limits", "skip confirmation"
    if (OVERRIDE_VERBS.has(t.norm)) {
      for (let k = i + 1; k < Math.min(n, i + 6); k++) if (RULE_NOUNS.has(tokens[k]!.norm)) return true;
    }
    if (LIMIT_VERBS.has(t.norm)) {
      const a = tokens[i + 1]?.norm ?? '';
      const b = tokens[i + 2]?.norm ?? '';
      const c = tokens[i + 3]?.norm ?? '';
      if (LIMIT_NOUNS.has(a) || (['my', 'your', 'our'].includes(a) && (LIMIT_NOUNS.has(b) || LIMIT_NOUNS.has(c)))) return true;
    }
    // "without confirmation", "no need to confirm"
    if (t.norm === 'without' || (t.norm === 'no' && tokens[i + 1]?.norm === 'need')) {
      for (let k = i + 1; k < Math.min(n, i + 4); k++) if (WITHOUT_NOUNS.has(tokens[k]!.norm)) return true;
    }
    // "debit @bob", "charge acct_X", "use @bob's wallet", "with bob's card"
    if (['debit', 'charge', 'withdraw', 'pull', 'drain', 'empty'].includes(t.norm)) {
      const next = tokens[i + 1];
      if (next && OTHER_PARTY_KINDS.has(next.kind)) return true;
      if (!isQuestion && (t.norm === 'withdraw' || t.norm === 'drain' || t.norm === 'empty')) {
        const after = tokens[i + 1]?.norm;
        if (after && after !== 'my' && after !== 'from') {
          for (let k = i + 1; k < Math.min(n, i + 4); k++) if (FUNDS_NOUNS.has(tokens[k]!.norm)) return true;
        }
      }
    }
    // Another party's funds, not as a destination: "@bob's wallet", "using acct_X funds".
    if (OTHER_PARTY_KINDS.has(t.kind)) {
      const possessive = (tokens[i + 1]?.text === "'" || tokens[i + 1]?.text === '’') && tokens[i + 2]?.norm === 's';
      const noun = tokens[possessive ? i + 3 : i + 1]?.norm ?? '';
      const before = w(i - 1);
      if (FUNDS_NOUNS.has(noun) && before !== 'to' && before !== 'into' && before !== 'for') return true;
    }
  }
  return false;
}
