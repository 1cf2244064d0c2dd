/**
 * The biller catalogue, as the rest of the service uses it: the shape of data/billers.json and
 * its loader (biller-schema.ts), the alias index people's words are matched against
 * (biller-aliases.ts), finding a biller (find-biller.ts), and the checks of a customer number
 * and an amount (bill-checks.ts).
 */
export * from './biller-schema.js';
export * from './biller-aliases.js';
export * from './find-biller.js';
export * from './bill-checks.js';
