import type { Exception } from './check-arch.js';

/**
 * KNOWN EXCEPTIONS to the architecture check (scripts/check-arch.ts): imports that break a rule
 * today and are to be removed. This list may only shrink: the check fails on any violation not
 * listed here, and on any entry here that no longer occurs (delete it then). Each entry: rule,
 * importing file, imported file or package.
 */
export const KNOWN_EXCEPTIONS: readonly Exception[] = [
];
