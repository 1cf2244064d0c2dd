#!/bin/sh
# Issue 23, eleventh round (h11pg): alternated pairs, base (4f4091f, a detached worktree through
# BENCH_ROOT) then this branch, same bench script, uptime beside each run.
#   git worktree add --detach /work/wt/h11pg-base 4f4091f && cp -al node_modules /work/wt/h11pg-base/
#   sh docs/bench/issue-23-h11pg-pairs.sh [pairs=3] > docs/bench/issue-23-h11pg-pairs.txt
BASE=${BASE:-/work/wt/h11pg-base}
for i in $(seq ${FROM:-1} "${1:-3}"); do
  for code in base after; do
    echo "=== pair $i $code $(date -u +%H:%M:%S) $(uptime)"
    if [ "$code" = base ]; then BENCH_ROOT=$BASE npx tsx bench/settlement-http.ts 100 100 lowdb,pg
    else npx tsx bench/settlement-http.ts 100 100 lowdb,pg; fi
  done
done
echo "=== end $(date -u +%H:%M:%S) $(uptime)"
