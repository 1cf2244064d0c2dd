/**
 * A call as the local engine builds it: a tool's name and its arguments, before the tool's own
 * schema checks them (parse-message.ts `finish`). Untyped on purpose: the local engine knows the
 * tools only through the registry it is given, never by importing them.
 */
export type DraftCall = { name: string; input: Record<string, unknown> };

/** What an intent builder produces: a tool call, or a reply saying what is missing (and, when the gate decided it, why). */
export type Draft = { call: DraftCall } | { reply: string; reason?: string };
