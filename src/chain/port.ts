/**
 * The chain port: what the domain modules (settlement, transfers, bills, markets, the
 * custodial mover) need from the chain. `ChainService` implements it over viem and a real node;
 * domain unit tests implement it in memory (test/helpers/fake-chain.ts).
 */
import type { ChainService } from './chain.js';

export type ChainPort = Pick<
  ChainService,
  | 'chainId'
  | 'tokenAddress'
  | 'decimals'
  | 'embedded'
  | 'custodialAddress'
  | 'nonceFor'
  | 'balanceOf'
  | 'nativeBalance'
  | 'authorizationState'
  | 'transferWithAuthorizationTypedData'
  | 'verifyTransferAuthorization'
  | 'submitTransferWithAuthorization'
  | 'batchTransfers'
  | 'submitTransferWithAuthorizations'
  | 'signCustodialAuthorization'
  | 'waitForReceipt'
  | 'transactionKnown'
  | 'chainTime'
  | 'findAuthorizationTx'
  | 'depositAddress'
  | 'signDepositAuthorization'
  | 'latestBlockNumber'
  | 'findTransfersTo'
>;
