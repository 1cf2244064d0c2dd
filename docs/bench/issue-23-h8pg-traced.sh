#!/bin/bash
# usage: traced.sh <label> <root>
L=$1; ROOT=$2
cd /work/wt/h8pg
rm -f /tmp/h8pg/$L.trace
node /tmp/h8pg/sampler.mjs > /tmp/h8pg/$L.samples 2>&1 &
SP=$!
uptime > /tmp/h8pg/$L.out
H8TRACE=/tmp/h8pg/$L.trace BENCH_ROOT=$ROOT timeout 900 npx tsx bench/settlement-http.ts 100 100 pg >> /tmp/h8pg/$L.out 2>&1
kill $SP
