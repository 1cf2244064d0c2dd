import { registerRoute } from '../../http/openapi.js';

/**
 * The Telegram webhook's path and its OpenAPI description, apart from the handler in index.ts:
 * the bridge (and grammY) loads only with TELEGRAM_BOT_TOKEN, but the document describes the
 * route on every deployment, so src/doors.ts imports this small module and not the bridge.
 */
export const WEBHOOK_PATH = '/telegram/webhook';

registerRoute({
  method: 'post',
  path: `/api${WEBHOOK_PATH}`,
  operationId: 'telegramWebhook',
  summary: 'Telegram Bot API updates (webhook mode only, when TELEGRAM_WEBHOOK_URL is set)',
  tags: ['Bridges'],
  auth: 'none',
  headers: {
    'X-Telegram-Bot-Api-Secret-Token': { description: 'Must equal TELEGRAM_WEBHOOK_SECRET.', required: true },
  },
  responses: {
    200: { description: 'Update accepted.' },
    401: { description: 'Wrong or missing secret token.' },
    404: { description: 'The bridge is off or polls (no TELEGRAM_BOT_TOKEN or TELEGRAM_WEBHOOK_URL): the route is not mounted.' },
  },
});
