#!/bin/bash
# Alternated pairs: base (f105711, detached worktree) then h9pg, same bench script (this branch's, unchanged from base).
cd /work/wt/h9pg
for i in 1 2 3 4; do
  for who in base h9pg; do
    root=/work/wt/h9pg-base; [ $who = h9pg ] && root=/work/wt/h9pg
    echo "=== pair $i $who $(date -u +%H:%M:%S) load: $(uptime | sed 's/.*load average: //')"
    BENCH_ROOT=$root timeout 900 npx tsx bench/settlement-http.ts 100 100 lowdb,pg 2>&1 | grep -v "^\s*at "
  done
done
echo "=== done $(date -u +%H:%M:%S)"
