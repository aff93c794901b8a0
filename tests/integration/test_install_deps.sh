#!/usr/bin/env bash
# Integration tests of deploy/install-deps.sh's checks: the CUDA toolkit's
# presence and version, and its own usage. (Installing packages is what CI's
# own run of the script proves.)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

script=deploy/install-deps.sh
expect "everything present: --check passes quietly" 0 "^$" -- "$script" --check
expect "unknown option is a usage error" 2 "unknown option '--bogus'" -- "$script" --bogus
expect "--help explains the modes" 0 "only say what is missing" -- "$script" --help
expect "no toolkit: says so" 1 "no CUDA toolkit at CUDA_HOME=$TMP/none" -- \
    env CUDA_HOME="$TMP/none" "$script" --check
expect "no toolkit: says where to get one" 1 "https://developer.nvidia.com/cuda-downloads" -- \
    env CUDA_HOME="$TMP/none" "$script" --check

# A fake toolkit of the wrong version, then one without NVRTC.
fake="$TMP/cuda"
mkdir -p "$fake/include" "$fake/lib64"
printf '#define CUDA_VERSION 12040\n' >"$fake/include/cuda.h"
touch "$fake/include/nvrtc.h" "$fake/lib64/libnvrtc.so"
expect "CUDA 12.4 is too old" 1 "the toolkit at $fake is CUDA 12.4" -- \
    env CUDA_HOME="$fake" "$script" --check
printf '#define CUDA_VERSION 13010\n' >"$fake/include/cuda.h"
expect "CUDA 13.1 is accepted" 0 "" -- env CUDA_HOME="$fake" "$script" --check
rm "$fake/lib64/libnvrtc.so"
expect "a toolkit without NVRTC is refused" 1 "libnvrtc.so is missing" -- \
    env CUDA_HOME="$fake" "$script" --check
finish
