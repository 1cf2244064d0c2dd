import type { AccountsService } from '../../accounts/accounts.js';
import type { FxService } from '../../fx/rates.js';
import { formatUsdc } from '../../lib/money.js';
import type { WalletSummary } from '../../wallet/balance.js';
import { GetBalanceInput } from '../../wallet/wallet-tool-inputs.js';
import type { Wallets } from '../../wallet/wallets.js';
import { local } from '../money-format.js';
import { ToolFailureReason, checkInput, defineTool, type ToolContext, type ToolOutcome, type ToolRun } from './contract.js';
import { findPhrase, hasLemma } from '../local/analysis.js';
import { asksWhatIHave, HAVE_LEMMAS, shapesOf } from '../local/intent-shapes.js';
import { BALANCE_CUES } from '../local/lexicon.js';
import { detectBalance } from '../local/read-intents.js';

/** get_balance: the caller's wallet in the stablecoin and in their local currency. */
export const getBalance = defineTool({
  name: 'get_balance',
  input: GetBalanceInput,
  action: 'balance',
  description: "Show the user's wallet balance in the stablecoin and in their local currency.",
  movesMoney: false,
  readOnly: true,
  local: {
    // "how much dey my account?", "niko na pesa ngapi": found by its own words first.
    detect: { rank: 40, run: (a) => (detectBalance(a) ? { kind: 'tool', call: { name: 'get_balance', input: {} } } : undefined) },
    scored: {
      rank: 90,
      cues: BALANCE_CUES,
      score: (a) => {
        const howMuch = (findPhrase(a, ['how', 'much']) >= 0 || findPhrase(a, ['how', 'many']) >= 0) && hasLemma(a, ...HAVE_LEMMAS);
        // "send my whole balance to 0803…", "transfère tout mon solde à…": the balance as what a send verb sends
        // (never "send me my balance", which asks for it) is a transfer of an amount not written, no balance question.
        const verb = a.lemmas.findIndex((l) => l === 'send' || l === 'transfer');
        const sendsAway = verb >= 0 && !['me', 'moi', 'mi'].includes(a.tokens[verb + 1]?.norm ?? '') && a.lemmas.slice(verb + 1).some((l) => l === 'balance' || l === 'funds');
        return (shapesOf(a).amounts ? -3 : 0) + (howMuch ? 5 : 0) + (asksWhatIHave(a) ? 3 : 0) + (sendsAway ? -6 : 0);
      },
      gate: (a) => hasLemma(a, 'balance', 'funds') || shapesOf(a).howMuchHave || asksWhatIHave(a),
      build: () => ({ call: { name: 'get_balance', input: {} } }),
    },
  },
  prompt: { line: "the user's own balance." },
  describe: () => 'Show your balance.',
  handler: (deps) => getBalanceHandler({ wallets: deps.wallets, fx: deps.fx, accounts: deps.accounts }),
});

function getBalanceHandler(deps: { wallets: Pick<Wallets, 'summary'>; fx: FxService; accounts: AccountsService }): ToolRun<GetBalanceInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(getBalance, input);
    if (!checked.ok) return checked;
    const account = await deps.accounts.get(ctx.accountId);
    if (!account) return { ok: false, action: 'balance', reason: ToolFailureReason.not_allowed, message: 'Your account could not be found.' };
    let w: WalletSummary;
    try {
      w = await deps.wallets.summary(account);
    } catch {
      return { ok: false, action: 'balance', reason: 'chain_unavailable', message: 'The network is not reachable right now; try again shortly.' };
    }
    const inLocal = deps.fx.fromStablecoin(BigInt(w.balance_base_units), w.currency);
    const localText = inLocal.ok ? local(deps.fx, inLocal.minor, w.currency) : null;
    return {
      ok: true,
      action: 'balance',
      result: { ...w, stablecoin: 'USDC' },
      summary: `Your balance is ${formatUsdc(w.balance_base_units)}${localText ? ` (${localText} at ${w.rate} ${w.currency}/USDC)` : ''}.`,
    };
  };
}
