import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';

/** Hostnames of the machine itself: a developer's MCP client talks to http://localhost:3000/api/mcp. */
const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface HostGuardOptions {
  /** The service's public URL (PUBLIC_URL): its hostname and origin are always ours. */
  publicUrl: string;
  /** Outside production the machine's own names are ours too. */
  allowLocalhost: boolean;
}

function forbidden(res: Response, message: string): void {
  // The SDK's own answer shape (a JSON-RPC error with a null id), so MCP clients read it as such.
  res.status(403).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * DNS-rebinding protection for the MCP HTTP door (MCP 2025-11-25, transports "Security warning":
 * servers MUST validate the Origin header). A page on evil.example whose name was re-pointed at
 * our address reaches us with `Host: evil.example` and `Origin: http://evil.example`: both are
 * refused (403) before the key is even looked at. The Host check is the SDK's own middleware
 * (hostname only, any port); the Origin, when a browser sends one, must be exactly our public
 * origin or, outside production, a localhost origin. Clients that are not browsers send no
 * Origin and are judged by Host alone.
 */
export function mcpHostGuard(opts: HostGuardOptions): RequestHandler {
  const pub = new URL(opts.publicUrl);
  const hostnames = [pub.hostname, ...(opts.allowLocalhost ? LOCAL_HOSTNAMES : [])];
  const hostCheck = hostHeaderValidation(hostnames);
  const originAllowed = (origin: string): boolean => {
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    if (u.origin === pub.origin) return true;
    return opts.allowLocalhost && (u.protocol === 'http:' || u.protocol === 'https:') && LOCAL_HOSTNAMES.includes(u.hostname);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin)) return forbidden(res, `Invalid Origin: ${origin}`);
    hostCheck(req, res, next);
  };
}
