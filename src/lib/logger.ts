import pino, { type Logger } from 'pino';

/** Paths pino must never print: credentials, cookies and every secret we mint. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.password',
  '*.passwordHash',
  '*.privateKey',
  '*.mnemonic',
  '*.apiKey',
  '*.token',
  'secret',
  'password',
  'privateKey',
  'mnemonic',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

export type { Logger };
