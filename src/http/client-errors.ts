import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses before any handler runs (headers over its 16 kB limit, a
 * malformed request line, a request that never finished arriving): Node's own answer is an empty
 * 431/400/408. Answer them in the developer error body with an X-Request-Id instead, like every
 * other response (README "Errors": no answer outside the documented shapes). The route is not
 * known yet, so the developer shape is the one used.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing to answer on a connection that is gone (a reset, or a response already started).
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      status === 431 ? 'Request headers are too large (at most 16 kB in all).' : status === 408 ? 'The request took too long to arrive.' : 'Malformed HTTP request.';
    const body = JSON.stringify({ error: { type: 'invalid_request_error', message } });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: req_${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
