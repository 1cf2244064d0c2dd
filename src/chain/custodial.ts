/**
 * Signing with the custodial keys (BIP-44 accounts from the wallet mnemonic, wallet-secrets.ts): an
 * authorization the service signs for a custodial wallet, with a validity window taken from
 * chain time. Relaying is the submitter's job.
 */
import { type Hex, type PrivateKeyAccount } from 'viem';
import { fail, type Fail, type Ok } from '../lib/results.js';
import type { Eip712Domain, TransferAuthorization } from './authorization.js';
import { transferAuthorizationDigest } from './transfer-digest.js';
import { wallSeconds, type LatestBlockCache } from './node-reads.js';
import { VerifyReason, type CustodialTransferParams } from './chain-results.js';
import type { CustodialKeyring } from './wallet-secrets.js';

const CUSTODIAL_VALID_AFTER_MARGIN = 60n;
const CUSTODIAL_VALIDITY_SECONDS = 3600n;
/**
 * How old a block read may be to date an authorization we sign (custodialValidity). Without it
 * every signature waited for a `eth_getBlockByNumber` (the latest-block cache lasts one poll,
 * 20 ms on anvil): in an agent turn that round trip, racing the balance read, was most of the
 * "signature" (issue 23, tenth round). An older block is still safe for `validAfter` (chain time
 * never runs backwards); `validBefore` counts from it plus its age.
 */
export const CUSTODIAL_CLOCK_MAX_AGE_MS = 5_000;

export interface CustodialContext {
  custodial: CustodialKeyring;
  eip712Domain: Eip712Domain;
  latest: LatestBlockCache;
}

/** Signs `auth` with the custodial key at `index`; throws when `auth.from` is not that wallet. */
export async function signAsCustodial(ctx: CustodialContext, index: number, auth: TransferAuthorization): Promise<Hex> {
  const account = ctx.custodial.account(index);
  if (account.address.toLowerCase() !== auth.from.toLowerCase()) {
    throw new Error(`custodial wallet ${index} is not the authorizer ${auth.from}`);
  }
  return signDigest(account, ctx.eip712Domain, auth);
}

/** The same signature as `account.signTypedData(buildTransferTypedData(domain, auth).typedData)`, hashed the short way (transfer-digest.ts). */
function signDigest(account: PrivateKeyAccount, domain: Eip712Domain, auth: TransferAuthorization): Promise<Hex> {
  return account.sign({ hash: transferAuthorizationDigest(domain, auth) });
}

/** A custodial authorization valid from chain time (see custodialValidity), signed; fails only when the chain cannot be reached. */
export async function signCustodialAuthorization(
  ctx: CustodialContext,
  params: CustodialTransferParams,
): Promise<Ok<{ auth: TransferAuthorization; signature: Hex }> | Fail<typeof VerifyReason.chainUnavailable>> {
  const account = ctx.custodial.account(params.fromIndex);
  const latest = await ctx.latest.recent(CUSTODIAL_CLOCK_MAX_AGE_MS).catch(() => undefined);
  if (!latest) return fail(VerifyReason.chainUnavailable, 'the chain could not be reached');
  const auth: TransferAuthorization = {
    from: account.address,
    to: params.to,
    value: params.value,
    ...custodialValidity(latest.block.timestamp, wallSeconds(), latest.ageSeconds),
    nonce: params.nonce.toLowerCase() as Hex,
  };
  const signature = await signDigest(account, ctx.eip712Domain, auth);
  return { ok: true, auth, signature };
}

/**
 * The validity window of an authorization we sign ourselves and relay at once. `validAfter`
 * comes from the chain, not the wall clock: the token compares it with `block.timestamp`, and
 * the simulation runs against the latest block, which is older than the wall clock whenever
 * the chain has been quiet (anvil mines only on demand) or a real network's blocks lag our
 * clock. A margin below the latest block keeps it valid in every block still to come.
 * `validBefore` counts from the later of the two clocks, so a chain running ahead of us
 * (anvil's time moved forward) still gets the full hour.
 */
export function custodialValidity(latestBlockTimestamp: bigint, wallSeconds: bigint, blockAgeSeconds = 0n): { validAfter: bigint; validBefore: bigint } {
  const validAfter = latestBlockTimestamp > CUSTODIAL_VALID_AFTER_MARGIN ? latestBlockTimestamp - CUSTODIAL_VALID_AFTER_MARGIN : 0n;
  // A block read `blockAgeSeconds` ago: chain time has moved on by about as much since.
  const chainNow = latestBlockTimestamp + blockAgeSeconds;
  const now = chainNow > wallSeconds ? chainNow : wallSeconds;
  return { validAfter, validBefore: now + CUSTODIAL_VALIDITY_SECONDS };
}
