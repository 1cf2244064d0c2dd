/**
 * The commerce-payments AuthCaptureEscrow (v1.0.0) and its ERC-3009 collector on the embedded
 * chain, at the addresses of the canonical v1.0 deployment: the x402 `auth-capture` clients
 * (`@x402/evm` AuthCaptureEvmScheme) accept only the published deployments (they compute the
 * authorization nonce from the escrow address and sign for the collector address), so an
 * unmodified client must find them there. On a real network they exist already; on anvil we
 * deploy from the vendored source (contracts/commerce-payments) and move the code into place:
 *
 * - the collector's immutables are its constructor arguments (escrow, multicall3): deploy it with
 *   the canonical escrow address, copy its runtime code to the canonical collector address;
 * - the OperatorRefundCollector's one immutable is its constructor argument (the escrow): the same;
 * - the escrow's one immutable, `tokenStoreImplementation`, is a TokenStore created by its own
 *   constructor for its own address: deploy TokenStore(canonical escrow) separately and write its
 *   address into the escrow's runtime code before copying it to the canonical escrow address.
 */
import { getAddress, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import {
  authCaptureEscrowAbi,
  authCaptureEscrowBytecode,
  eRC3009PaymentCollectorAbi,
  eRC3009PaymentCollectorBytecode,
  operatorRefundCollectorAbi,
  operatorRefundCollectorBytecode,
  tokenStoreAbi,
  tokenStoreBytecode,
} from './artifacts/auth-capture.js';

/** The v1.0 deployment (@x402/evm's AUTH_CAPTURE_DEPLOYMENT_V1_0). */
export const AUTH_CAPTURE_V1_0 = {
  escrow: getAddress('0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff'),
  eip3009Collector: getAddress('0x0E3dF9510de65469C4518D7843919c0b8C7A7757'),
  /** Pulls refund liquidity from `paymentInfo.operator` (its ERC-20 allowance): the escrow's `refund`. */
  operatorRefundCollector: getAddress('0x934907bffd0901b6A21e398B9C53A4A38F02fa5d'),
} as const;
/** Multicall3's address on every chain; only ERC-6492 (counterfactual wallet) signatures call it. */
export const MULTICALL3 = getAddress('0xcA11bde05977b3631167028862bE2a173976CA11');

export { authCaptureEscrowAbi, eRC3009PaymentCollectorAbi, operatorRefundCollectorAbi };

type Client = PublicClient<Transport, Chain>;

async function deploy(pc: Client, wallet: WalletClient<Transport, Chain, Account>, abi: readonly unknown[], bytecode: Hex, args: unknown[]): Promise<Address> {
  const hash = await wallet.deployContract({ abi: abi as never, bytecode, args: args as never });
  const receipt = await pc.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  return getAddress(receipt.contractAddress);
}

async function setCode(pc: Client, address: Address, code: Hex): Promise<void> {
  await pc.request({ method: 'anvil_setCode' as never, params: [address, code] as never });
}

/**
 * Where the escrow is on this chain, or undefined: the embedded chain gets it at start-up
 * (`ensureAuthCaptureEscrow`, from a throwaway deployer so the relayer's nonces and its relay
 * journal are untouched); a real network must have the canonical v1.0 deployment already
 * (Base and Base Sepolia do), else auth-capture is off there.
 */
export async function findAuthCaptureEscrow(pc: Client): Promise<typeof AUTH_CAPTURE_V1_0 | undefined> {
  const present = async (a: Address) => ((await pc.getCode({ address: a })) ?? '0x') !== '0x';
  return (await present(AUTH_CAPTURE_V1_0.escrow)) && (await present(AUTH_CAPTURE_V1_0.eip3009Collector)) && (await present(AUTH_CAPTURE_V1_0.operatorRefundCollector))
    ? AUTH_CAPTURE_V1_0
    : undefined;
}

/** Puts the escrow and the collector at their v1.0 addresses on an anvil chain (no-op when there). */
export async function ensureAuthCaptureEscrow(pc: Client, wallet: WalletClient<Transport, Chain, Account>): Promise<typeof AUTH_CAPTURE_V1_0> {
  const present = async (a: Address) => ((await pc.getCode({ address: a })) ?? '0x') !== '0x';
  // A chain from before the refund collector (a kept anvil state) gets just that one.
  if (!(await present(AUTH_CAPTURE_V1_0.operatorRefundCollector))) {
    const scratchRefund = await deploy(pc, wallet, operatorRefundCollectorAbi, operatorRefundCollectorBytecode, [AUTH_CAPTURE_V1_0.escrow]);
    await setCode(pc, AUTH_CAPTURE_V1_0.operatorRefundCollector, (await pc.getCode({ address: scratchRefund }))!);
  }
  if ((await present(AUTH_CAPTURE_V1_0.escrow)) && (await present(AUTH_CAPTURE_V1_0.eip3009Collector))) return AUTH_CAPTURE_V1_0;

  const scratchEscrow = await deploy(pc, wallet, authCaptureEscrowAbi, authCaptureEscrowBytecode, []);
  const scratchStore = await pc.readContract({ address: scratchEscrow, abi: authCaptureEscrowAbi, functionName: 'tokenStoreImplementation' });
  const store = await deploy(pc, wallet, tokenStoreAbi, tokenStoreBytecode, [AUTH_CAPTURE_V1_0.escrow]);
  const escrowCode = (await pc.getCode({ address: scratchEscrow }))!;
  const from = scratchStore.slice(2).toLowerCase();
  // via-IR writes an immutable at each place it is read: replace every copy (20 random bytes do
  // not occur by chance in the code).
  const parts = escrowCode.toLowerCase().split(from);
  if (parts.length < 2) throw new Error('tokenStoreImplementation not found in the escrow code');
  await setCode(pc, AUTH_CAPTURE_V1_0.escrow, parts.join(store.slice(2).toLowerCase()) as Hex);

  const scratchCollector = await deploy(pc, wallet, eRC3009PaymentCollectorAbi, eRC3009PaymentCollectorBytecode, [AUTH_CAPTURE_V1_0.escrow, MULTICALL3]);
  await setCode(pc, AUTH_CAPTURE_V1_0.eip3009Collector, (await pc.getCode({ address: scratchCollector }))!);
  return AUTH_CAPTURE_V1_0;
}
