#!/usr/bin/env bash
# Installs what kgrade needs to build, test and run, and checks the CUDA toolkit.
#
#   deploy/install-deps.sh           install missing Debian packages (needs root), check CUDA
#   deploy/install-deps.sh --check   only say what is missing; exit 1 if anything is
#
# Idempotent and quick when everything is present: it asks dpkg, and runs
# apt-get only for packages that are missing. Debian has no CUDA toolkit
# package, so the toolkit is checked, never installed.
set -euo pipefail

CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
CUDA_MIN_VERSION=13000   # CUDA_VERSION in cuda.h: 1000 * major + 10 * minor

# Build: compiler, pkg-config and the libraries of DESIGN.md. Tests: cmocka,
# clang with its sanitizer and libFuzzer runtimes, clang-format, curl, jq,
# sqlite3 (to plant an old certificate in a test database); wrk for make bench.
# Numba submissions: Debian's python3-numba (0.56, with llvmlite and numpy),
# which grader/numba_compile.py runs with the toolkit's libNVVM; IPython for
# the notebook client's tests; ipykernel, the kernel `kgrade jupyter install`
# starts, and nbclient, which runs notebooks through it in the tests. The
# virtual GPU's compiled tier: LLVM 16's ORC JIT (llvm-16-dev, the C API and
# libLLVM-16).
PACKAGES=(
    build-essential pkg-config
    libmicrohttpd-dev libsqlite3-dev libjansson-dev libcmocka-dev
    libseccomp-dev libsodium-dev libcurl4-openssl-dev libcmark-dev
    llvm-16-dev
    clang libclang-rt-dev clang-format
    curl ca-certificates jq sqlite3 wrk
    python3-numba python3-ipython python3-ipykernel python3-nbclient
)

check_only=false
case "${1:-}" in
    --check) check_only=true ;;
    "") ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$1' (use --check or nothing)" >&2; exit 2 ;;
esac

say() { echo "install-deps: $*" >&2; }

missing_packages() {
    local p status
    for p in "${PACKAGES[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [[ "$status" == "install ok installed" ]] || echo "$p"
    done
}

install_packages() {
    if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
        say "this is not a Debian or Ubuntu system: install the equivalents of"
        say "  ${PACKAGES[*]}"
        say "yourself, then run make again."
        exit 1
    fi
    local missing
    missing=$(missing_packages | tr '\n' ' ')
    [[ -z "${missing// /}" ]] && return 0
    if $check_only; then
        say "missing Debian packages: $missing"
        say "install them with: sudo deploy/install-deps.sh"
        exit 1
    fi
    if [[ $(id -u) -ne 0 ]]; then
        say "missing Debian packages: $missing"
        say "installing them needs root: run 'sudo deploy/install-deps.sh', then make again."
        exit 1
    fi
    say "installing: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -q --no-install-recommends $missing
}

cuda_help() {
    say "$1"
    say "kgrade needs the CUDA toolkit 13.0 or newer (NVRTC and cuda.h; a GPU is optional)."
    say "Debian has no package for it: install NVIDIA's, from"
    say "  https://developer.nvidia.com/cuda-downloads  (e.g. apt-get install cuda-toolkit-13-0"
    say "  after adding NVIDIA's Debian repository), or set CUDA_HOME to where it is installed."
    exit 1
}

check_cuda() {
    [[ -d "$CUDA_HOME" ]] || cuda_help "no CUDA toolkit at CUDA_HOME=$CUDA_HOME."
    [[ -f "$CUDA_HOME/include/nvrtc.h" ]] || cuda_help "$CUDA_HOME/include/nvrtc.h is missing."
    [[ -f "$CUDA_HOME/include/cuda.h" ]] || cuda_help "$CUDA_HOME/include/cuda.h is missing."
    compgen -G "$CUDA_HOME/lib64/libnvrtc.so*" >/dev/null ||
        cuda_help "$CUDA_HOME/lib64/libnvrtc.so is missing."
    local version
    version=$(sed -n 's/^#define CUDA_VERSION \([0-9][0-9]*\).*/\1/p' "$CUDA_HOME/include/cuda.h" | head -n 1)
    [[ -n "$version" ]] || cuda_help "cannot read CUDA_VERSION from $CUDA_HOME/include/cuda.h."
    if (( version < CUDA_MIN_VERSION )); then
        cuda_help "the toolkit at $CUDA_HOME is CUDA $((version / 1000)).$((version % 1000 / 10))."
    fi
}

install_packages
check_cuda
