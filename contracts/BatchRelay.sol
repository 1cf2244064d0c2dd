// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/**
 * Relays several EIP-3009 `transferWithAuthorization` calls to one token in one transaction,
 * each on its own: a call the token refuses is reported (`ItemFailed`) and the others still go
 * through. Settlements of unrelated payers arrive together and must not fail together, and the
 * token (USDC) has no batch function of its own (issue 23, point 2).
 *
 * An item may also be the token's own `transferWithAuthorizations` (several authorizations, all
 * or none: an agent transfer and its fee, issue 23 point 3): the token reverts the whole call
 * when one of them fails, so such an item moves all its authorizations or none, and fails alone.
 * Version 2; version 1 (contracts/deployed/BatchRelay-v1.sol) forwarded single authorizations only.
 *
 * Stateless and without owner: anyone may call it, as anyone may call the token's
 * transferWithAuthorization directly (the payer's signature is what authorizes the move). Only
 * the two transferWithAuthorization overloads and transferWithAuthorizations are forwarded, so
 * it cannot be made to call anything else on the token. Deployed at one address on every chain through the deterministic
 * CREATE2 deployer (src/chain/relay-batches.ts).
 */
contract BatchRelay {
    /// A forwarded call that reverted (`reason`: the token's revert data), or one that is not a
    /// transferWithAuthorization (empty reason). Nothing of that item moved.
    event ItemFailed(uint256 indexed index, bytes reason);

    /// transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)
    bytes4 private constant WITH_VRS = 0xe3ee160e;
    /// transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)
    bytes4 private constant WITH_BYTES = 0xcf092995;
    /// transferWithAuthorizations((address,address,uint256,uint256,uint256,bytes32,bytes)[])
    bytes4 private constant ALL_OR_NONE = 0x02a8d6e7;

    function relay(address token, bytes[] calldata calls) external {
        for (uint256 i = 0; i < calls.length; i++) {
            bytes calldata c = calls[i];
            bytes4 selector = c.length >= 4 ? bytes4(c[:4]) : bytes4(0);
            if (selector != WITH_VRS && selector != WITH_BYTES && selector != ALL_OR_NONE) {
                emit ItemFailed(i, "");
                continue;
            }
            (bool ok, bytes memory reason) = token.call(c);
            if (!ok) emit ItemFailed(i, reason);
        }
    }
}
