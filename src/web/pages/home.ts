import { escapeHtml, layout, type SignedInAccount } from '../layout.js';

/** `GET /`: what this service is and where to go next (the app, the API reference, the OpenAPI document). */
export function homePage(account: SignedInAccount | undefined, publicUrl: string): string {
  const start = account
    ? `<p class="cta"><a class="btn btn-primary" href="/app">Open your dashboard</a></p>
  <p class="hint">Signed in as ${escapeHtml(account.name)}.</p>`
    : `<p class="cta"><a class="btn btn-primary" href="/app/signup">Create an account</a> <a class="btn" href="/app/login">Log in</a></p>`;
  return layout({
    title: 'Hosted stablecoin payments',
    account,
    body: `<div class="card narrow home">
  <h1>Hosted stablecoin payments</h1>
  <p class="lede">Create a payment from your server, send your customer to the hosted checkout, and get the money settled on-chain in USDC, with network fees paid for you.</p>
  ${start}
</div>
<div class="grid-2">
  <section class="card" aria-labelledby="dev-title">
    <h2 id="dev-title">For developers</h2>
    <ul class="links">
      <li><a href="/docs">API reference</a> <span class="hint">(every route, its parameters and answers)</span></li>
      <li><a href="/api/openapi.json">OpenAPI document</a> <span class="hint">(the same, as OpenAPI 3.1 JSON for tools)</span></li>
      <li><a href="/app/developers">API keys and webhooks</a> <span class="hint">(Developers screen, after logging in)</span></li>
      <li><a href="/healthz">Service health</a></li>
    </ul>
  </section>
  <section class="card" aria-labelledby="try-title">
    <h2 id="try-title">Create a payment</h2>
    <pre><code>curl ${escapeHtml(publicUrl)}/api/v1/payments \\
  -H "Authorization: Bearer sk_live_..." \\
  -H "Content-Type: application/json" \\
  -d '{"amount": 25, "currency": "USD",
       "redirect_url": "https://shop.example/done"}'</code></pre>
    <p class="hint">The answer carries a <code>checkout_url</code>: send your customer there.</p>
  </section>
</div>`,
  });
}
