#!/bin/bash
# Alternated pairs: base (cfbcf37) then h8pg, same bench script (this branch's, unchanged from base).
cd /work/wt/h8pg
for i in 1 2 3 4; do  # then 5 6 7 in a second sitting right after
  for who in base h8pg; do
    root=/work/wt/h8pg-base; [ $who = h8pg ] && root=/work/wt/h8pg
    echo "=== pair $i $who $(date -u +%H:%M:%S) load: $(uptime | sed 's/.*load average: //')"
    BENCH_ROOT=$root timeout 900 npx tsx bench/settlement-http.ts 100 100 lowdb,pg 2>&1 | grep -v "^\s*at "
  done
done
echo "=== done $(date -u +%H:%M:%S)"
