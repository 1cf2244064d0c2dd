import type { Exception } from './check-arch.js';

/**
 * KNOWN EXCEPTIONS to the architecture check (scripts/check-arch.ts): imports that break a rule
 * today and are being removed (issue 12 items 1 and 2: the composition root and thin doors).
 * This list may only shrink: the check fails on any violation not listed here, and on any
 * entry here that no longer occurs (delete it then). Each entry: rule, importing file,
 * imported file or package.
 */
export const KNOWN_EXCEPTIONS: readonly Exception[] = [
  // Doors importing doors: checkout's routers lean on the api door's deps, auth, errors and
  // settlement/dev routers; the api door mounts the MCP transport.
  ['door-imports-door', 'src/checkout/app-wallet.router.ts', 'src/api/deps.ts'],
  ['door-imports-door', 'src/checkout/app-wallet.router.ts', 'src/api/auth.ts'],
  ['door-imports-door', 'src/checkout/app-wallet.router.ts', 'src/api/errors.ts'],
  ['door-imports-door', 'src/checkout/app-wallet.router.ts', 'src/api/settlement.router.ts'],
  ['door-imports-door', 'src/checkout/checkout.router.ts', 'src/api/deps.ts'],
  ['door-imports-door', 'src/checkout/checkout.router.ts', 'src/api/dev.router.ts'],
  ['door-imports-door', 'src/checkout/checkout.router.ts', 'src/api/settlement.router.ts'],
  ['door-imports-door', 'src/checkout/checkout.router.ts', 'src/api/auth.ts'],
  ['door-imports-door', 'src/api/mcp.router.ts', 'src/mcp/server.ts'],
  ['door-imports-door', 'src/api/mcp.router.ts', 'src/mcp/agent-backend.ts'],

  // Express middleware inside the agent (the shared rate-limit middleware belongs with the HTTP
  // doors' plumbing).
  ['door-package-below-doors', 'src/agent/rate-limit.ts', 'express'],
  ['door-package-below-doors', 'src/agent/rate-limit.ts', 'express-rate-limit'],

  // Doors and the agent reaching past the domain into the store and the chain.
  ['reaches-store-or-chain', 'src/agent/agent.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/agent/pending-actions.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/agent/rate-limit.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/agent/handlers.ts', 'src/chain/chain.ts'],
  ['reaches-store-or-chain', 'src/agent/money-tools.ts', 'src/chain/chain.ts'],
  ['reaches-store-or-chain', 'src/api/deps.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/api/deps.ts', 'src/chain/chain.ts'],
  ['reaches-store-or-chain', 'src/api/dev.router.ts', 'src/chain/authorization.ts'],
  ['reaches-store-or-chain', 'src/bridges/telegram/context.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/bridges/telegram/context.ts', 'src/chain/chain.ts'],
  ['reaches-store-or-chain', 'src/bridges/telegram/dedupe.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/checkout/checkout.router.ts', 'src/chain/networks.ts'],
  ['reaches-store-or-chain', 'src/web/dashboard-data.ts', 'src/chain/networks.ts'],
  ['reaches-store-or-chain', 'src/web/deps.ts', 'src/store/index.ts'],
  ['reaches-store-or-chain', 'src/web/deps.ts', 'src/chain/chain.ts'],

  // The chain facade and its service import each other's types (issue 12 item 4 splits chain.ts).
  ['file-cycle', 'src/chain/boot.ts', 'src/chain/chain-service.ts'],
  ['file-cycle', 'src/chain/boot.ts', 'src/chain/chain.ts'],
  ['file-cycle', 'src/chain/chain-service.ts', 'src/chain/chain.ts'],
  ['file-cycle', 'src/chain/chain.ts', 'src/chain/boot.ts'],
  ['file-cycle', 'src/chain/chain.ts', 'src/chain/chain-service.ts'],
];
