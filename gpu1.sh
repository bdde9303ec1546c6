#!/usr/bin/env bash
# Throwaway: chapter 10 on the H200 (not committed).
set -u
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | tee $L/gpu.txt
s=$SECONDS
make setup > $L/setup.log 2>&1; echo "setup rc=$? $((SECONDS-s)) s"
s=$SECONDS
{ make -k SOLUTIONS=1 chapter10; make -k chapter10; make -k SOLUTIONS=1 chapter10 bench-binaries; make -k SOLUTIONS=1 chapter3 chapter4 chapter3-profile 2>/dev/null; } > $L/build.log 2>&1; echo "build rc=$? $((SECONDS-s)) s"
s=$SECONDS; timeout 200 make chapter10 test SOLUTIONS=1 > $L/ch10-sol.log 2>&1; echo "ch10 solution test rc=$? $((SECONDS-s)) s"; tail -4 $L/ch10-sol.log
s=$SECONDS; timeout 100 make chapter10 test > $L/ch10-skel.log 2>&1; echo "ch10 skeleton test rc=$? (want nonzero) $((SECONDS-s)) s lines=$(wc -l < $L/ch10-skel.log)"
s=$SECONDS; timeout 150 make chapter10 bench SOLUTIONS=1 > $L/ch10-bench.log 2>&1; echo "ch10 bench rc=$? $((SECONDS-s)) s"; grep -E "GFLOP|TFLOP|goal|MISSED|met|cuBLAS|%" $L/ch10-bench.log | tail -25
s=$SECONDS; timeout 100 make chapter10 profile BACKEND=cuda SOLUTIONS=1 > $L/ch10-profile.log 2>&1; echo "ch10 profile rc=$? $((SECONDS-s)) s"
s=$SECONDS; timeout 60 make chapter3 sass SOLUTIONS=1 > $L/ch3-sass.log 2>&1; echo "ch3 sass rc=$? $((SECONDS-s)) s"; head -3 $L/ch3-sass.log
s=$SECONDS; timeout 90 make chapter3 profile BACKEND=cuda SOLUTIONS=1 > $L/ch3-profile.log 2>&1; echo "ch3 profile rc=$? $((SECONDS-s)) s"; grep -i "flight\|little" $L/ch3-profile.log | head -8
cp -r build/bench $L/ 2>/dev/null
cd $OUT && tar czf logs.tgz logs && rm -rf logs
