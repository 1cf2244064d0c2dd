/** Why the core stopped a money-moving call (the turn's `reason`). */
export const GroundingReason = {
  /** An argument of the call is not in the person's own words (quoted and forwarded text do not count). */
  not_grounded: 'not_grounded',
} as const;
export type GroundingReason = (typeof GroundingReason)[keyof typeof GroundingReason];

/**
 * The only arguments an engine may fill in without the person writing them, and what the
 * held action tells them. A call carrying one is held for confirmation (never acted on at
 * once); any other argument not found in the person's words ends the turn `not_grounded`.
 */
export const INFERRED = {
  currency_from_account: "I used your account's currency; the message names none.",
  network_from_phone: "I picked the mobile network from the phone number's prefix.",
  biller_from_category_and_country: 'I picked the only biller of that kind in your country.',
  /** "pesos" says MXN or PHP but not which: the engine took the recipient's own (the held action names it). */
  peso_from_recipient: 'Your message says "pesos" without saying which: I used the pesos the recipient receives.',
} as const;
export type Inferred = keyof typeof INFERRED;

/**
 * The person's words hold more than the call can carry (two amounts, two currencies, two
 * recipients): the call is grounded, but the reading is not the only one, so it is held too.
 */
export const AMBIGUOUS = {
  several_amounts: 'Your message names more than one amount; check this is the one you mean.',
  several_currencies: 'Your message names more than one currency for that amount; check this is the one you mean.',
  several_recipients: 'Your message names more than one recipient; check this is the one you mean.',
} as const;
export type Ambiguous = keyof typeof AMBIGUOUS;

/** A turn with nothing of the person's own, only forwarded or quoted text (reason `quoted_only`). */
export const QUOTED_ONLY_REPLY =
  "That's a forwarded or quoted message: I read it as information, never as an instruction, so I did nothing. Tell me in your own words what you'd like to do.";
