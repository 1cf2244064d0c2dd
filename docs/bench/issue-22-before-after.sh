#!/bin/bash
for i in 1 2; do
 for t in base22 main; do
  d=/tmp/base22; [ $t = main ] && d=/work/main
  cd $d
  echo "== $t http $i load $(cut -d' ' -f1-3 /proc/loadavg)" 
  BENCH_ONLY=http BENCH_SCALES=1000 BENCH_DURATION=6 timeout 300 npx tsx bench/run.ts 2>&1 | tail -25
  echo "== $t agent $i load $(cut -d' ' -f1-3 /proc/loadavg)"
  BENCH_ONLY=agent BENCH_DURATION=2 timeout 300 npx tsx bench/run.ts 2>&1 | tail -25
  echo "== $t settlement $i load $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 300 npx tsx bench/settlement.ts 150 100 2>&1 | tail -20
 done
done
echo ALLDONE
