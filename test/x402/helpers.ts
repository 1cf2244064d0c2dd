/** x402 fixtures: a merchant's resource server protected by the real @x402/express over our facilitator. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Address, Hex, PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { buildTransferTypedData } from '../../src/chain/authorization.js';
import type { TestService } from '../helpers/service.js';

export interface ResourceServer {
  url: string;
  close(): Promise<void>;
}

/** A merchant's API: GET /weather costs `amount` atomic units paid to `payTo`, settled by our facilitator. */
export async function startResourceServer(
  svc: TestService,
  key: string,
  payTo: Address,
  amount: string,
  extensions?: Record<string, unknown>,
): Promise<ResourceServer> {
  const chain = svc.deps.chain;
  const network = `eip155:${chain.chainId}` as const;
  const headers = { Authorization: `Bearer ${key}` };
  const facilitator = new HTTPFacilitatorClient({
    url: `${svc.api}/x402`,
    createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
  });
  const server = new x402ResourceServer(facilitator).register(network, new ExactEvmServerScheme());
  const app = express();
  app.use(
    paymentMiddleware(
      {
        'GET /weather': {
          accepts: {
            scheme: 'exact',
            network,
            payTo,
            price: { amount, asset: chain.tokenAddress, extra: { name: chain.eip712Domain.name, version: chain.eip712Domain.version } },
            maxTimeoutSeconds: 120,
          },
          description: 'Weather report',
          mimeType: 'application/json',
          ...(extensions ? { extensions } : {}),
        },
      },
      server,
    ),
  );
  app.get('/weather', (_req, res) => {
    res.json({ forecast: 'sunny' });
  });
  const srv = http.createServer(app);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      }),
  };
}

/** An agent's fetch that pays with `signer` through the real @x402/fetch + @x402/evm client; records what it sent. */
export function payingFetch(signer: PrivateKeyAccount, svc: TestService, maxAtomic = '100000000'): { fetch: typeof fetch; sent: Headers[] } {
  const sent: Headers[] = [];
  const recording: typeof fetch = async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    sent.push(req.headers);
    return fetch(req);
  };
  // Our stablecoin is not one of the client's default assets: the agent opts in, with a cap.
  const network = `eip155:${svc.deps.chain.chainId}` as const;
  const client = x402Client.fromConfig({
    schemes: [{ network, client: new ExactEvmClientScheme(signer) }],
    spendControls: { allowedAssets: [{ network, asset: svc.deps.chain.tokenAddress, maxAmountPerPayment: maxAtomic }] },
  });
  return { fetch: wrapFetchWithPayment(recording, client), sent };
}

/** An agent's fetch that authorizes (holds) with `signer` through the real @x402/fetch + AuthCaptureEvmScheme on `chain`. */
export function authCaptureFetch(signer: PrivateKeyAccount, chain: { chainId: number; tokenAddress: string }, sent?: Headers[]): typeof fetch {
  const network = `eip155:${chain.chainId}` as const;
  const client = x402Client.fromConfig({
    schemes: [{ network, client: new AuthCaptureEvmScheme(signer as never) }],
    spendControls: { allowedAssets: [{ network, asset: chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
  });
  const recording: typeof fetch = async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    sent?.push(req.headers);
    return fetch(req);
  };
  return wrapFetchWithPayment(recording, client);
}

/** Polls `fn` every 100 ms until it gives a value. */
export async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function newPayer(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export interface Signed {
  paymentPayload: Record<string, unknown>;
  paymentRequirements: Record<string, unknown>;
}

/** A facilitator request signed by `signer`, with overrides for the negative cases. */
export async function signedRequest(
  svc: TestService,
  signer: PrivateKeyAccount,
  o: { payTo: Address; amount: string; value?: bigint; validBefore?: bigint; validAfter?: bigint; nonce?: Hex; network?: string },
): Promise<Signed> {
  const chain = svc.deps.chain;
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth = {
    from: signer.address,
    to: o.payTo,
    value: o.value ?? BigInt(o.amount),
    validAfter: o.validAfter ?? 0n,
    validBefore: o.validBefore ?? now + 120n,
    nonce: o.nonce ?? (`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex),
  };
  const { typedData, json } = buildTransferTypedData(chain.eip712Domain, auth);
  const signature = await signer.signTypedData(typedData);
  const requirements = {
    scheme: 'exact',
    network: o.network ?? `eip155:${chain.chainId}`,
    amount: o.amount,
    asset: chain.tokenAddress,
    payTo: o.payTo,
    maxTimeoutSeconds: 120,
    extra: { name: chain.eip712Domain.name, version: chain.eip712Domain.version },
  };
  return {
    paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization: json.message } },
    paymentRequirements: requirements,
  };
}
