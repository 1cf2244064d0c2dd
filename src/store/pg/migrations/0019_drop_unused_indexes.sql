-- Indexes no query uses (issue 23, eleventh round). Every payment update changes `doc`, so it is
-- never a HOT update and inserts an entry into each index of `payments`: three times per settle.
-- `(accountId, seq)` alone served no read: the payments list, the dashboard and the CSV export
-- name the mode too (`payments__i__accountId__livemode`, 0017), and so does the events list
-- (`webhook_events__i__accountId__livemode`). The reference dedupe per account and mode stays
-- (`payments__u__accountId__livemode__reference`, 0015). A plain DROP INDEX: a brief exclusive
-- lock on the table, no rebuild.

DROP INDEX IF EXISTS "payments__i__accountId";
DROP INDEX IF EXISTS "webhook_events__i__accountId";
