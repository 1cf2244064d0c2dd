-- Coordination between instances on one database (docs/deploy.md): leases that name who does
-- a piece of work until when, and fixed-window counters (the agent rate limit).

CREATE TABLE "store_leases" (
  name text PRIMARY KEY,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE TABLE "store_counters" (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  reset_at timestamptz NOT NULL
);
CREATE INDEX "store_counters__reset_at" ON "store_counters" (reset_at);
