import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Telegram Bot API server on loopback: answers every method grammY calls with
 * `{ok:true, result}` and records each call with its parsed body. getUpdates long-polls a
 * queue the test fills; `hold` delays a method's answers; `fail` makes the next call fail.
 */
export interface ApiCall {
  method: string;
  token: string;
  body: Record<string, any>;
  at: number;
  /** What the fake answered (e.g. the sent message with its message_id). */
  result?: any;
}

export const BOT_USER = {
  id: 123,
  is_bot: true,
  first_name: 'Stable Bot',
  username: 'stable_test_bot',
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
};

export interface FakeBotApi {
  url: string;
  calls: ApiCall[];
  callsTo(method: string): ApiCall[];
  /** Polls (bounded) until a recorded call matches. */
  waitFor(method: string, match?: (c: ApiCall) => boolean, timeoutMs?: number): Promise<ApiCall>;
  /** Answers of `method` wait until the returned release is called. */
  hold(method: string): () => void;
  /** The next call of `method` fails with this Bot API error. */
  fail(method: string, error: { error_code: number; description: string; parameters?: Record<string, unknown> }): void;
  /** Queues updates for getUpdates (polling mode). */
  push(...updates: object[]): void;
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(raw) as Record<string, any>;
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  if (type.includes('multipart/form-data')) {
    // Plain fields only (the bot sends no files): name="x"\r\n\r\nvalue
    const out: Record<string, any> = {};
    for (const m of raw.matchAll(/name="([^"]+)"\r\n\r\n([\s\S]*?)\r\n--/g)) {
      const v = m[2]!;
      try {
        out[m[1]!] = JSON.parse(v);
      } catch {
        out[m[1]!] = v;
      }
    }
    return out;
  }
  return { raw };
}

export async function startFakeBotApi(): Promise<FakeBotApi> {
  const calls: ApiCall[] = [];
  const held = new Map<string, Promise<void>>();
  const failures = new Map<string, Array<{ error_code: number; description: string; parameters?: Record<string, unknown> }>>();
  let queue: Array<{ update_id: number }> = [];
  const pollers = new Set<() => void>();
  let messageId = 5000;

  const result = (method: string, body: Record<string, any>): unknown => {
    const now = Math.floor(Date.now() / 1000);
    switch (method) {
      case 'getMe':
        return BOT_USER;
      case 'sendMessage':
        return {
          message_id: ++messageId,
          date: now,
          chat: { id: Number(body.chat_id), type: 'private' },
          from: { id: BOT_USER.id, is_bot: true, first_name: BOT_USER.first_name, username: BOT_USER.username },
          text: body.text,
          ...(body.reply_markup ? { reply_markup: body.reply_markup } : {}),
        };
      case 'editMessageText':
        return {
          message_id: Number(body.message_id),
          date: now,
          edit_date: now,
          chat: { id: Number(body.chat_id), type: 'private' },
          text: body.text,
          ...(body.reply_markup ? { reply_markup: body.reply_markup } : {}),
        };
      case 'getWebhookInfo':
        return { url: '', has_custom_certificate: false, pending_update_count: 0 };
      default:
        // setWebhook, deleteWebhook, answerCallbackQuery, sendChatAction, setMyCommands, editMessageReplyMarkup...
        return true;
    }
  };

  const server = http.createServer(async (req, res) => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url?.split('?')[0] ?? '');
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      return;
    }
    const [, token, method] = m as unknown as [string, string, string];
    const body = await readBody(req);
    const send = (status: number, payload: unknown) => {
      if (!res.writableEnded && !res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    if (method === 'getUpdates') {
      const offset = Number(body.offset ?? 0);
      const waitMs = Math.min(Number(body.timeout ?? 0), 30) * 1000;
      const ready = () => {
        queue = queue.filter((u) => u.update_id >= offset);
        return queue.length > 0;
      };
      if (!ready() && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            pollers.delete(done);
            resolve();
          };
          const timer = setTimeout(done, waitMs);
          pollers.add(done);
          req.on('close', done);
          res.on('close', done);
        });
      }
      ready();
      send(200, { ok: true, result: queue.slice(0, Number(body.limit ?? 100)) });
      return;
    }
    const call: ApiCall = { method, token, body, at: Date.now() };
    calls.push(call);
    const gate = held.get(method);
    if (gate) await gate;
    const failure = failures.get(method)?.shift();
    if (failure) {
      send(failure.error_code, { ok: false, ...failure });
      return;
    }
    call.result = result(method, body);
    send(200, { ok: true, result: call.result });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const callsTo = (method: string) => calls.filter((c) => c.method === method);
  return {
    url,
    calls,
    callsTo,
    async waitFor(method, match = () => true, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = callsTo(method).find(match);
        if (found) return found;
        if (Date.now() > deadline) {
          const seen = calls.map((c) => `${c.method} ${JSON.stringify(c.body).slice(0, 160)}`).join('\n  ');
          throw new Error(`no ${method} call matched within ${timeoutMs} ms; calls:\n  ${seen}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    hold(method) {
      let release!: () => void;
      held.set(method, new Promise<void>((r) => (release = r)));
      return () => {
        held.delete(method);
        release();
      };
    },
    fail(method, error) {
      failures.set(method, [...(failures.get(method) ?? []), error]);
    },
    push(...updates) {
      queue.push(...(updates as Array<{ update_id: number }>));
      for (const p of [...pollers]) p();
    },
    close() {
      for (const p of [...pollers]) p();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

// ------------------------------------------------------------------------ updates

export interface TgUser {
  id: number;
  first_name: string;
  username?: string;
}

let nextUpdateId = 700_000;
let nextMessageId = 1;
let nextCallbackId = 1;

export function newUpdateId(): number {
  return ++nextUpdateId;
}

/** A private-chat text message; a leading /command gets its bot_command entity. */
export function textUpdate(user: TgUser, text: string, updateId = newUpdateId()) {
  const cmd = /^\/\w+(@\w+)?/.exec(text);
  return {
    update_id: updateId,
    message: {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: user.id, type: 'private', first_name: user.first_name, ...(user.username ? { username: user.username } : {}) },
      from: { id: user.id, is_bot: false, first_name: user.first_name, ...(user.username ? { username: user.username } : {}), language_code: 'en' },
      text,
      ...(cmd ? { entities: [{ type: 'bot_command', offset: 0, length: cmd[0].length }] } : {}),
    },
  };
}

/** A tap on an inline button of the bot's message `messageId` in the user's private chat. */
export function callbackUpdate(user: TgUser, data: string, messageId: number, updateId = newUpdateId()) {
  return {
    update_id: updateId,
    callback_query: {
      id: `cbq${nextCallbackId++}`,
      from: { id: user.id, is_bot: false, first_name: user.first_name, ...(user.username ? { username: user.username } : {}) },
      chat_instance: `ci${user.id}`,
      data,
      message: {
        message_id: messageId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: user.id, type: 'private', first_name: user.first_name },
        from: { id: BOT_USER.id, is_bot: true, first_name: BOT_USER.first_name, username: BOT_USER.username },
        text: '(the bot message)',
      },
    },
  };
}

/** The callback_data of every inline button in a sendMessage/editMessageText body. */
export function buttonData(call: ApiCall): string[] {
  const markup = typeof call.body.reply_markup === 'string' ? JSON.parse(call.body.reply_markup) : call.body.reply_markup;
  return (markup?.inline_keyboard ?? []).flat().map((b: { callback_data?: string }) => b.callback_data ?? '');
}
