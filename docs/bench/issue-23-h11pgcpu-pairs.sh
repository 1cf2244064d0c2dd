#!/bin/sh
# Issue 23, eleventh round (h11pgcpu): alternated pairs, base (531e6a0, a detached worktree through
# BENCH_ROOT) then this branch, same bench script (this branch's, with the driver-side text count
# off), uptime beside each run.
#   git -C /work/main worktree add --detach /work/wt/h11pgcpu-base 531e6a0 && cp -al /work/main/node_modules /work/wt/h11pgcpu-base/
#   sh docs/bench/issue-23-h11pgcpu-pairs.sh [pairs=4] > docs/bench/issue-23-h11pgcpu-pairs.txt
#   FROM=5 sh docs/bench/issue-23-h11pgcpu-pairs.sh 6 >> docs/bench/issue-23-h11pgcpu-pairs.txt   (pairs 5-6, appended)
BASE=${BASE:-/work/wt/h11pgcpu-base}
for i in $(seq ${FROM:-1} "${1:-4}"); do
  for code in base after; do
    echo "=== pair $i $code $(date -u +%H:%M:%S) $(uptime)"
    if [ "$code" = base ]; then BENCH_ROOT=$BASE npx tsx bench/settlement-http.ts 100 100 lowdb,pg
    else npx tsx bench/settlement-http.ts 100 100 lowdb,pg; fi
  done
done
