/** The Developers screen's spend policy editor (docs/policies.md); driven by assets/policies.js. */
const ACTIONS: ReadonlyArray<[string, string]> = [
  ['transfer', 'Send money'],
  ['bill', 'Pay bills'],
  ['market_stake', 'Stake on markets'],
  ['payment_link', 'Create payment links'],
];

const capField = (id: string, label: string) => `<div class="field">
      <label for="pol-${id}">${label}</label>
      <input id="pol-${id}" name="${id}" type="text" inputmode="decimal" autocomplete="off" placeholder="No limit" aria-describedby="pol-${id}-error">
      <p class="field-error" id="pol-${id}-error" hidden></p>
    </div>`;

export function policiesSection(): string {
  const actions = ACTIONS.map(
    ([v, label]) => `<label class="check"><input type="checkbox" name="allowed_actions" value="${v}" checked> ${label}</label>`,
  ).join('\n      ');
  return `<section class="card" aria-labelledby="policies-title">
  <h2 id="policies-title">Spend policies</h2>
  <p>Bound what the agent may spend, whatever door a request comes through (API, chat, Telegram, MCP). A key's policy narrows the account's: both apply. Only you change a policy, with your password; a key can read its own, never change it.</p>
  <form id="policy-form" novalidate>
    <div class="field">
      <label for="pol-scope">Applies to</label>
      <select id="pol-scope" name="scope"><option value="account">The whole account</option></select>
    </div>
    <fieldset><legend>Caps in USD (rolling windows)</legend>
    ${capField('per_transaction', 'Per transaction')}
    ${capField('daily', 'Last 24 hours')}
    ${capField('weekly', 'Last 7 days')}
    ${capField('monthly', 'Last 30 days')}
    </fieldset>
    <div class="field">
      <label for="pol-currencies">Caps per currency</label>
      <textarea id="pol-currencies" name="currencies" rows="2" aria-describedby="pol-currencies-hint pol-currencies-error" placeholder="KES daily 5000"></textarea>
      <p class="hint" id="pol-currencies-hint">One per line: currency, per_transaction / daily / weekly / monthly, amount.</p>
      <p class="field-error" id="pol-currencies-error" hidden></p>
    </div>
    ${capField('approval_threshold_usd', 'Approval threshold (USD): above it, you confirm each action yourself')}
    <div class="field">
      <label for="pol-allow">Only these recipients</label>
      <textarea id="pol-allow" name="allow_recipients" rows="2" aria-describedby="pol-allow-hint pol-allow-error" placeholder="Anyone not blocked"></textarea>
      <p class="hint" id="pol-allow-hint">One per line: @handle, +phone, email or 0x address. Empty: anyone not blocked.</p>
      <p class="field-error" id="pol-allow-error" hidden></p>
    </div>
    <div class="field">
      <label for="pol-block">Never these recipients</label>
      <textarea id="pol-block" name="block_recipients" rows="2" aria-describedby="pol-block-error"></textarea>
      <p class="field-error" id="pol-block-error" hidden></p>
    </div>
    <fieldset><legend>Allowed actions</legend>
      ${actions}
    </fieldset>
    <div class="field">
      <label for="pol-password">Your password</label>
      <input id="pol-password" name="password" type="password" autocomplete="current-password" required aria-describedby="pol-password-error">
      <p class="field-error" id="pol-password-error" hidden></p>
    </div>
    <button type="submit" class="btn btn-primary">Save policy</button>
  </form>
  <p class="status-line" id="policy-status" role="status" aria-live="polite"></p>
  <h3 id="policy-history-title">Changes</h3>
  <ul id="policy-history" aria-labelledby="policy-history-title"></ul>
</section>`;
}
