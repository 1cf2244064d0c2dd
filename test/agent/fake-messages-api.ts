import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback fake of the Anthropic Messages API (the engine reaches it through
 * ANTHROPIC_BASE_URL) playing a model: each request takes the next scripted answer, a tool call
 * or a text, and its body is kept (to see what the model was shown).
 */
export type Script = { tool: string; input: unknown } | { text: string };

export async function fakeMessagesApi() {
  const queue: Script[] = [];
  const state = { requests: 0, bodies: [] as any[] };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      state.requests++;
      state.bodies.push(JSON.parse(raw || '{}'));
      const next = queue.shift() ?? { text: 'OK.' };
      const content = 'tool' in next ? [{ type: 'tool_use', id: `toolu_${state.requests}`, name: next.tool, input: next.input }] : [{ type: 'text', text: next.text }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `msg_${state.requests}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content,
          stop_reason: 'tool' in next ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 10 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    /** The model's answers for the next turn (a second one shows whether it was handed back). */
    play(...answers: Script[]) {
      queue.length = 0;
      queue.push(...answers);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
