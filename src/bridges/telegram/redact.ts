import pino, { type Logger } from 'pino';

/**
 * grammY's network errors carry the request URL, and the URL carries the bot token
 * (".../bot<token>/sendMessage"). The bridge logs through this child logger, whose `err`
 * serializer replaces the token wherever it appears.
 */
export function redactingLogger(logger: Logger, token: string): Logger {
  const forms = [token, encodeURIComponent(token)];
  const scrub = (value: unknown): unknown => {
    let text = JSON.stringify(value);
    if (text === undefined) return value;
    for (const f of forms) text = text.split(f).join('[bot token]');
    return JSON.parse(text);
  };
  return logger.child({ module: 'telegram' }, { serializers: { err: (e: unknown) => scrub(pino.stdSerializers.err(e as Error)) } });
}
