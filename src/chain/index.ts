/** Public surface of the on-chain layer; other modules import from here. */
export {
  createChain,
  FaucetReason,
  SubmitReason,
  VerifyReason,
  type ChainService,
  type CreateChainOptions,
  type CustodialTransferParams,
  type FindAuthorizationOptions,
  type ReceiptOutcome,
  type SubmitFailure,
  type SubmitOptions,
  type SubmitResult,
} from './chain.js';
export {
  Bytes32,
  EvmAddress,
  SignatureHex,
  TransferAuthorization,
  Uint256,
  buildTransferTypedData,
  nonceFor,
  type Eip712Domain,
  type TransferAuthorizationInput,
  type TransferTypedData,
  type TransferTypedDataJson,
} from './authorization.js';
export { CustodialKeyring, custodialAccount, getOrCreateSecret, loadOrCreateMnemonic, readSecrets } from './wallets.js';
export { startAnvil, type AnvilHandle, type AnvilOptions } from './anvil.js';
