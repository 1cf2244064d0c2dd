/** Texts the local engine answers with when it does not make a tool call. */

export const EXAMPLES = [
  'send 5,000 KES to @amina for lunch',
  'pay my IKEDC meter 45123456789 with 3000 naira',
  'create a market: will it rain in Lagos on Friday?',
  "what's my balance?",
];

export const HELP_TEXT =
  'I can send money, pay bills, run prediction markets, make payment links and show your balance. Try:\n' +
  EXAMPLES.map((e) => `• ${e}`).join('\n') +
  '\nMore: "bet 500 on yes in mkt_…", "resolve mkt_… as No", "show open markets", "create a payment link for 2500 NGN".';

export const NOT_UNDERSTOOD =
  "Sorry, I didn't get that. I can send money, pay bills, run prediction markets, make payment links and show your balance. For example:\n" +
  EXAMPLES.map((e) => `• ${e}`).join('\n');

export const NOTHING_DONE = "Okay, I won't do anything.";

export const RECIPIENT_FORMS = 'a Telegram @username, a phone number in international format (+254712345678), an email, an acct_… id or a 0x address';

export const replies = {
  transferNeedsBoth: `To send money, tell me how much and to whom, e.g. "send 5,000 KES to @amina". The recipient can be ${RECIPIENT_FORMS}.`,
  transferNeedsRecipient: (amount: string) => `Who should receive ${amount}? Give ${RECIPIENT_FORMS}.`,
  transferNeedsAmount: (recipient: string) => `How much should I send to ${recipient}? e.g. "send 5,000 KES to ${recipient}".`,
  transferOneRecipient: 'I can send to one recipient at a time. Which one should get this transfer?',
  transferNationalPhone: (digits: string) =>
    `Please write ${digits} in international format with the country code, e.g. +254712345678, so I send it to the right person.`,
  transferNamedRecipient: (name: string) => `I need ${name}'s Telegram @username, phone number (+254…), email, acct_… id or 0x address.`,
  noScheduling: "I can't schedule payments for later yet; I can only pay right away. Send the message again without the date when you're ready.",
  suggestMarket: (question: string) => `Want a prediction market on that? Say: "create a market: ${question}"`,
  welcome: "You're welcome! Tell me whenever you want to send money, pay a bill or start a market.",
  useButtons: 'If you are answering a confirmation, please use its Confirm or Cancel button. Otherwise tell me what to do, e.g. "send 5,000 KES to @amina".',
  amountPositive: 'The amount must be greater than zero.',
  amountTooLarge: 'That amount is too large for me to handle in one go.',
  billNeedsBiller: 'Which biller should I pay? For example IKEDC, KPLC, DStv, GOtv, MTN or Safaricom airtime.',
  billNeedsAccount: (biller: string, label: string) => `What's the ${label} for ${biller}?`,
  billNeedsAmount: (biller: string) => `How much should I pay ${biller}?`,
  billNeedsAll: 'To pay a bill, tell me the biller, the meter/smartcard/phone number and the amount, e.g. "pay my IKEDC meter 45123456789 with 3000 naira".',
  marketNeedsQuestion: 'What should the market ask? e.g. "create a market: will it rain in Lagos on Friday?"',
  marketQuestionLength: 'A market question needs 5 to 200 characters.',
  marketOutcomeCount: 'A market needs between 2 and 10 outcomes.',
  marketClosePast: 'That close time has already passed. When should staking close?',
  stakeNeedsMarket: 'Which market? Give its id (mkt_…) or words from its question, e.g. "bet 500 on yes in mkt_abc123".',
  stakeNeedsOutcome: (market: string) => `Which outcome do you want to back in ${market}? e.g. "on yes".`,
  stakeNeedsAmount: (market: string) => `How much do you want to stake in ${market}?`,
  resolveNeedsMarket: 'Which market should I resolve? e.g. "resolve mkt_abc123 as Yes".',
  resolveNeedsOutcome: (market: string) => `What was the winning outcome of ${market}? e.g. "resolve ${market} as Yes".`,
  cancelNeedsMarket: 'Which market should I cancel? e.g. "cancel mkt_abc123".',
  linkNeedsAmount: 'How much should the payment link charge? e.g. "create a payment link for 2500 NGN for a haircut".',
} as const;
