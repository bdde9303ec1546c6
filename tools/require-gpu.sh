#!/usr/bin/env bash
# Usage: tools/require-gpu.sh WHAT BACKEND
#
# Timings and compute-sanitizer reports only mean something on a real GPU. Exit 0
# when this machine looks like it has one (nvidia-smi lists a GPU; without nvidia-smi,
# a /dev/nvidiaN device exists); otherwise print one line saying why WHAT refuses to
# run, and exit 1. The programs check again for themselves when they start.
set -u
what=$1
backend=$2

if [ "$backend" != cuda ]; then
    echo "$what: refused: BACKEND=$backend runs the kernels on the CPU, where timings and sanitizer reports mean nothing; run it with BACKEND=cuda on a machine with an NVIDIA GPU."
    exit 1
fi
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && exit 0
elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    exit 0
fi
echo "$what: refused: no CUDA GPU found (nvidia-smi lists none); it needs a machine with an NVIDIA GPU."
exit 1
