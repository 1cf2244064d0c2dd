/**
 * The one list of the HTTP doors' routers (docs/architecture.md): every route the service
 * answers is mounted from here, in this order, over the one core. A new HTTP door adds its
 * router(s) here and nowhere else. Each router module registers its routes' OpenAPI descriptions
 * when it loads (next to the handlers), so importing them here is what fills the document.
 */
import type { Router } from 'express';
import type { Core } from './core/core.js';
import type { HttpRoutes } from './http/app.js';
import { healthRouter } from './api/health.router.js';
import { metricsRouter } from './api/metrics.router.js';
import { authRouter } from './api/auth.router.js';
import { keysRouter } from './api/keys.router.js';
import { policiesRouter } from './api/policies.router.js';
import { jwksRouter, receiptsRouter } from './api/receipts.router.js';
import { agentActionsRouter } from './api/agent-actions.router.js';
import { paymentsCreateFront, paymentsCreateRouter, paymentsRouter } from './api/payments.router.js';
import { checkoutReadFront, checkoutRouter } from './api/checkout.router.js';
import { openapiRouter } from './api/openapi.router.js';
import { appPaymentsRouter } from './api/app-payments.router.js';
import { webhooksRouter } from './api/webhooks.router.js';
import { agentRateLimiter, agentRouter } from './api/agent.router.js';
import { chatRouter } from './api/chat.router.js';
import { mcpRouter } from './mcp/http.router.js';
import { checkoutSettleFront, settlementRouter } from './api/settlement.router.js';
import { x402Router } from './api/x402.router.js';
import { x402DiscoveryRouter } from './api/x402-discovery.router.js';
import { x402PayRouter } from './api/x402-pay.router.js';
import { cancelRouter } from './api/cancel.router.js';
import { captureRouter } from './api/capture.router.js';
import { eventsRouter } from './api/events.router.js';
import { webhookEndpointsRouter } from './api/webhook-endpoints.router.js';
import { refundsRouter } from './api/refunds.router.js';
import { quotesRouter } from './api/quotes.router.js';
import { claimsRouter } from './api/claims.router.js';
import { devRouter, devRoutesEnabled } from './api/dev.router.js';
import { dashboardDataRouter } from './web/data.router.js';
import { webRouter } from './web/router.js';
import { appWalletPayRouter } from './checkout/app-wallet.router.js';
import { checkoutPageRouter } from './checkout/checkout-page.router.js';
import { claimPageRouter } from './web/claim.router.js';
// The Telegram webhook's OpenAPI description (the bridge itself loads only with a bot token).
import './bridges/telegram/webhook-route.js';

/** Every HTTP router over `core`; `telegram` is the bridge's webhook route when it has one. */
export function httpRoutes(core: Core, extra: { telegram?: Router } = {}): HttpRoutes {
  // One limiter for the HTTP doors that run agent turns (the Telegram bridge counts on the same).
  const agentLimiter = agentRateLimiter(core);
  return {
    // The hottest routes (the create, the checkout read and its settle), answered in front of
    // express for their common case (FrontRoute).
    front: [paymentsCreateFront(core), checkoutReadFront(core), checkoutSettleFront(core)],
    // The create, the route a merchant's server calls most: ahead of every other router.
    hot: [paymentsCreateRouter(core)],
    // The public checkout read is the most polled route: answered before the API's body parsing.
    root: [checkoutRouter(core), healthRouter(core), metricsRouter(core), jwksRouter(core)],
    api: [
      // Hot routes first (the create is in `hot`): a request walks the routers in order until one answers.
      paymentsRouter(core),
      authRouter(core),
      // Before the keys router: /keys/:id/policy authenticates on its own (docs/policies.md).
      policiesRouter(core),
      keysRouter(core),
      openapiRouter(core),
      // The web app's session-only JSON (src/web, docs/web-app.md).
      appPaymentsRouter(core),
      dashboardDataRouter(core),
      webhooksRouter(core, core.webhooks),
      agentRouter(core, agentLimiter),
      receiptsRouter(core),
      agentActionsRouter(core),
      chatRouter(core, agentLimiter),
      // The agent's tools over MCP (docs/mcp.md); money-moving tools wait for a person on /app/actions/:id.
      mcpRouter(core),
      // On-chain settlement and the checkout page's app-wallet pay (docs/settlement.md).
      settlementRouter(core),
      appWalletPayRouter(core),
      // x402 v2 facilitator and the x402 door of hosted sessions (docs/x402.md).
      // The public bazaar listing first: x402Router asks every /x402 path for a key.
      x402DiscoveryRouter(core),
      x402Router(core),
      x402PayRouter(core),
      cancelRouter(core),
      captureRouter(core),
      eventsRouter(core, core.events),
      webhookEndpointsRouter(core, core.webhookEndpoints),
      refundsRouter(core, core.refunds),
      // Firm quotes (docs/quotes.md).
      quotesRouter(core),
      // Claim links to phones and emails with no account (docs/claims.md).
      claimsRouter(core),
      ...(devRoutesEnabled(core) ? [devRouter(core)] : []),
      ...(extra.telegram ? [extra.telegram] : []),
    ],
    // The web app at /app, then the hosted checkout page /pay/:id.
    pages: [webRouter(core), checkoutPageRouter(core), claimPageRouter(core)],
  };
}
