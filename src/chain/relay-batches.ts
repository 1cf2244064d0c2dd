/**
 * The batch relay (contracts/BatchRelay.sol): several checkout settlements in one relayer
 * transaction, each authorization on its own (a refused one does not fail the others), on any
 * token with EIP-3009, USDC included (issue 23, point 2).
 *
 * It lives at one address on every chain: the CREATE2 address of its creation code through the
 * deterministic deployment proxy (present on anvil and on most EVM networks), salt zero. The
 * embedded chain gets its runtime code placed there at start; on a real network it is used when
 * someone deployed it (anyone can, permissionlessly, by sending the creation code to the proxy),
 * and otherwise every settlement is its own transaction as before.
 *
 * Version 2 also forwards the token's all-or-none `transferWithAuthorizations` (an agent transfer
 * and its fee, issue 23 point 3), so such a pair joins a group as one member. New code is a new
 * address: a network where only version 1 was deployed still groups single authorizations with
 * it, and each pair goes as its own transaction to the token, as before version 2.
 */
import { concat, encodeFunctionData, getContractAddress, type Address, type Hex } from 'viem';
import { batchRelayAbi, batchRelayBytecode, batchRelayDeployedBytecode, batchRelayV1Bytecode, batchRelayV1DeployedBytecode } from './artifacts/batch-relay.js';

/** Arachnid's deterministic deployment proxy (the one anvil and foundry use). */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const SALT: Hex = `0x${'00'.repeat(32)}`;

/** Where the batch relay (version 2) is on every chain. */
export const BATCH_RELAY_ADDRESS: Address = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: SALT, bytecode: batchRelayBytecode });

/** What the deployment proxy is sent to create it: salt then creation code. */
export const batchRelayDeployData: Hex = concat([SALT, batchRelayBytecode]);

/** Version 1's address (single authorizations only), used when version 2 is not deployed. */
export const BATCH_RELAY_V1_ADDRESS: Address = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: SALT, bytecode: batchRelayV1Bytecode });

/** What created version 1 (tests deploy it to check the fallback). */
export const batchRelayV1DeployData: Hex = concat([SALT, batchRelayV1Bytecode]);

/** A batch relay found on the chain; `pairs`: it also forwards `transferWithAuthorizations` (version 2). */
export interface BatchRelay {
  address: Address;
  pairs: boolean;
}

interface CodeReader {
  getCode(args: { address: Address }): Promise<Hex | undefined>;
  request(args: { method: never; params: never }): Promise<unknown>;
}

/**
 * Version 2 when its exact code is at its address, else version 1 when its exact code is at its
 * own (single authorizations grouped, pairs sent alone), else undefined: one transaction each.
 */
export async function findBatchRelay(client: Pick<CodeReader, 'getCode'>): Promise<BatchRelay | undefined> {
  const [v2, v1] = await Promise.all([client.getCode({ address: BATCH_RELAY_ADDRESS }), client.getCode({ address: BATCH_RELAY_V1_ADDRESS })]);
  if (v2?.toLowerCase() === batchRelayDeployedBytecode.toLowerCase()) return { address: BATCH_RELAY_ADDRESS, pairs: true };
  if (v1?.toLowerCase() === batchRelayV1DeployedBytecode.toLowerCase()) return { address: BATCH_RELAY_V1_ADDRESS, pairs: false };
  return undefined;
}

/** The embedded chain: version 2's runtime code placed at its address (anvil_setCode; no relayer nonce used). */
export async function placeBatchRelay(client: CodeReader): Promise<BatchRelay> {
  const relay: BatchRelay = { address: BATCH_RELAY_ADDRESS, pairs: true };
  if ((await client.getCode({ address: BATCH_RELAY_ADDRESS }))?.toLowerCase() === batchRelayDeployedBytecode.toLowerCase()) return relay;
  await client.request({ method: 'anvil_setCode' as never, params: [BATCH_RELAY_ADDRESS, batchRelayDeployedBytecode] as never });
  return relay;
}

/** The calldata of `relay(token, calls)`: each call is one transferWithAuthorization(s)' own calldata. */
export function encodeRelay(token: Address, calls: readonly Hex[]): Hex {
  return encodeFunctionData({ abi: batchRelayAbi, functionName: 'relay', args: [token, calls] });
}

/** topic0 of the token's `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)`. */
const AUTHORIZATION_USED = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';

/** How a receipt names an authorization it used (`ReceiptOutcome.used`). */
export function authorizationKey(authorizer: Address, nonce: Hex): string {
  return `${authorizer.toLowerCase()}:${nonce.toLowerCase()}`;
}

/** The authorizations `token` used in a receipt's logs: which members of a batch actually moved. */
export function usedAuthorizations(logs: readonly { address: string; topics: readonly string[] }[], token: Address): string[] {
  const keys: string[] = [];
  const at = token.toLowerCase();
  for (const l of logs) {
    const [topic0, authorizer, nonce] = l.topics;
    if (topic0 !== AUTHORIZATION_USED || !authorizer || !nonce || l.address.toLowerCase() !== at) continue;
    keys.push(`0x${authorizer.slice(26).toLowerCase()}:${nonce.toLowerCase()}`);
  }
  return keys;
}
