#!/bin/sh
# Issue 23, thirteenth round (h13pg): alternated runs, base (277c416, a detached worktree through
# BENCH_ROOT) then this branch, same bench script (this branch's), uptime beside each run.
#   git worktree add --detach /tmp/h13pg-base 277c416 && cp -al /work/main/node_modules /tmp/h13pg-base/
#   STORES=pg sh docs/bench/issue-23-h13pg-pairs.sh 5        (PostgreSQL only)
#   STORES=lowdb,pg sh docs/bench/issue-23-h13pg-pairs.sh 4  (the target's ratio)
# Extra environment (BENCH_PG_STATEMENTS=1) passes through to both runs.
BASE=${BASE:-/tmp/h13pg-base}
for i in $(seq ${FROM:-1} "${1:-4}"); do
  for code in base after; do
    echo "=== pair $i $code $(date -u +%H:%M:%S) $(uptime)"
    if [ "$code" = base ]; then BENCH_ROOT=$BASE npx tsx bench/settlement-http.ts 100 100 ${STORES:-pg}
    else npx tsx bench/settlement-http.ts 100 100 ${STORES:-pg}; fi
  done
done
