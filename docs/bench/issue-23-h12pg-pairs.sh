#!/bin/sh
# Issue 23, twelfth round (h12pg): alternated pairs, base (b45394c, a detached worktree through
# BENCH_ROOT) then this branch, same bench script (this branch's), uptime beside each run.
#   git worktree add --detach /work/wt/h12pg-base b45394c && cp -al node_modules /work/wt/h12pg-base/
#   sh docs/bench/issue-23-h12pg-pairs.sh [pairs=4] > docs/bench/issue-23-h12pg-pairs.txt
#   FROM=5 sh docs/bench/issue-23-h12pg-pairs.sh 6 >> docs/bench/issue-23-h12pg-pairs.txt   (pairs 5-6, appended)
# Extra environment (BENCH_WARM=200, BENCH_PG_STATEMENTS=1) passes through to both runs.
BASE=${BASE:-/work/wt/h12pg-base}
for i in $(seq ${FROM:-1} "${1:-4}"); do
  for code in base after; do
    echo "=== pair $i $code $(date -u +%H:%M:%S) $(uptime)"
    if [ "$code" = base ]; then BENCH_ROOT=$BASE npx tsx bench/settlement-http.ts 100 100 lowdb,pg
    else npx tsx bench/settlement-http.ts 100 100 lowdb,pg; fi
  done
done
