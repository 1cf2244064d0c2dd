-- Test mode beside live (issue 24, docs/test-mode.md). Everything made before test mode is
-- live: keys, payments, refunds, events (their stored body too), deliveries, webhook endpoints
-- and agent actions get "livemode": true, so the modes' equality filters find them. The lowdb
-- store does the same at start (src/core/livemode-backfill.ts), which this records as done.

UPDATE "api_keys" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
UPDATE "payments" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
UPDATE "refunds" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
UPDATE "webhook_deliveries" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
UPDATE "webhook_endpoints" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
UPDATE "pending_actions" SET doc = doc || '{"livemode": true}'::jsonb WHERE NOT (doc ? 'livemode');
-- The body is the exact text sent: "livemode":true goes in before its last brace, the rest unchanged.
UPDATE "webhook_events"
   SET doc = doc || jsonb_build_object(
         'livemode', true,
         'body', CASE WHEN (doc ->> 'body') ~ '"livemode"\s*:' THEN doc ->> 'body'
                      ELSE regexp_replace(doc ->> 'body', '}\s*$', ',"livemode":true}') END)
 WHERE NOT (doc ? 'livemode');

-- A reference is unique per account and mode (a test payment never dedupes onto a live one).
DROP INDEX IF EXISTS "payments__u__accountId__reference";
CREATE UNIQUE INDEX "payments__u__accountId__livemode__reference" ON "payments" ((doc -> 'accountId'), (doc -> 'livemode'), (doc -> 'reference')) WHERE (doc -> 'accountId') <> 'null'::jsonb AND (doc -> 'livemode') <> 'null'::jsonb AND (doc -> 'reference') <> 'null'::jsonb;

CREATE TABLE "store_backfills" (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  doc jsonb NOT NULL
);
CREATE UNIQUE INDEX "store_backfills__seq" ON "store_backfills" (seq);
INSERT INTO "store_backfills" (id, doc) VALUES ('livemode_0015', jsonb_build_object('id', 'livemode_0015', 'doneAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
