#!/usr/bin/env bash
# Integration tests of `kgrade run` and `kgrade jupyter install`: the course
# without a GPU. A C program linked with -lcuda (the toolkit's stub, as the
# GPU tests are) runs on the virtual GPU, on the modeled GPU KGEMU_DEVICE
# names; a Python program's numba gets its shims only when it imports
# numba.cuda, and numba's own runtime runs a kernel on device arrays timed
# with events, and what the course uses besides (pinned and mapped memory, a
# stream, a gufunc, cuda.close()); kgrade's errors before the program
# starts; the program's exit code, signals and process are its own. The Jupyter kernel goes where Jupyter looks,
# and nbclient (Debian's python3-nbclient) runs a notebook through it.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

PYTHON=/usr/bin/python3 # Debian's, with numba (not a python3 of pyenv's first in the PATH)
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
DRIVER="$(cd "$(dirname "$KGRADE")" && pwd)/emulator/libcuda.so.1"
run() { "$KGRADE" run "$@"; }

# ---------------------------------------------------------------- the command
expect "run --help says what it does" 0 "^usage: kgrade run PROGRAM \[ARGS\]" -- "$KGRADE" run --help
expect "... and that the exit code is the program's" 0 "^exit code: the program's own; 2 when kgrade cannot start it$" -- \
    "$KGRADE" run --help
expect "kgrade --help lists run" 0 "^  run " -- "$KGRADE" --help
expect "kgrade --help lists jupyter install" 0 "^  jupyter install " -- "$KGRADE" --help
expect "jupyter --help shows jupyter install's help" 0 "^usage: kgrade jupyter install" -- \
    "$KGRADE" jupyter --help
expect "jupyter alone names its second word" 2 "'kgrade jupyter install'" -- "$KGRADE" jupyter
expect "no program is a usage error" 2 "missing PROGRAM \[ARGS\]" -- "$KGRADE" run
expect "a program not in the PATH is named" 2 "'no-such-program' is not a program in the PATH" -- \
    run no-such-program
expect "a missing file is named" 2 "$TMP/none: No such file" -- run "$TMP/none"
printf 'print("hello")\n' >"$TMP/hello.py"
expect "a script that is not executable: says to run its interpreter" 2 \
    "not an executable file .*kgrade run /usr/bin/python3" -- run "$TMP/hello.py"
mkdir -p "$TMP/bare"
cp "$KGRADE" "$TMP/bare/kgrade"
expect "no virtual GPU beside kgrade: says to build it" 2 \
    "the virtual GPU is not built \($TMP/bare/emulator/libcuda.so.1 is missing\): run make" -- \
    "$TMP/bare/kgrade" run true
ln -s "$(dirname "$DRIVER")" "$TMP/bare/emulator"
expect "no Python site folder beside kgrade: says to build it" 2 \
    "run-site/sitecustomize.py is missing\): run make" -- "$TMP/bare/kgrade" run true
expect "the program's options are its own" 0 "^Python 3\." -- run "$PYTHON" --version
expect "... --help included" 0 "^\['-c', '--help'\]$" -- run "$PYTHON" -c 'import sys; print(sys.argv)' --help
expect "the program's exit code is its own" 7 "" -- run bash -c 'exit 7'
expect "the program's signals are its own (it is exec'd)" 0 "^143$" -- \
    bash -c "'$KGRADE' run bash -c 'kill -TERM \$\$'; echo \$?"
# A shell prints its process id, then becomes kgrade run, whose program prints its own.
process_ids() { bash -c 'echo $$; exec "$0" run sh -c "echo \$\$"' "$KGRADE"; }
different_process_ids() { process_ids | uniq | wc -l; }
expect "the program runs in kgrade's place (the same process)" 0 "^1$" -- different_process_ids
expect "the virtual GPU's folder comes first in LD_LIBRARY_PATH" 0 "^$(dirname "$DRIVER"):/elsewhere$" -- \
    env LD_LIBRARY_PATH=/elsewhere "$KGRADE" run sh -c 'echo "$LD_LIBRARY_PATH"'
expect "numba's driver is the virtual GPU, by its absolute path" 0 "^$DRIVER$" -- \
    run sh -c 'echo "$NUMBA_CUDA_DRIVER"'

# ------------------------------------------------------------ a C program
# Linked with the toolkit's stub libcuda.so (soname libcuda.so.1), as the
# GPU tests are: the loader must find the virtual GPU's.
cat >"$TMP/device_name.c" <<'C'
#include <cuda.h>
#include <stdio.h>
int main(void)
{
    CUdevice device;
    char name[128];
    int major, minor;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        cuDeviceGetName(name, sizeof name, device) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) ||
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
        return 1;
    printf("%s, compute capability %d.%d\n", name, major, minor);
    return 0;
}
C
cc -I"$CUDA_HOME/include" -o "$TMP/device_name" "$TMP/device_name.c" -L"$CUDA_HOME/lib64/stubs" -lcuda
expect "a C program linked with -lcuda runs on the virtual H100" 0 \
    "^kgrade virtual H100 \(emulated\), compute capability 9\.0$" -- run "$TMP/device_name"
expect "... on the GPU KGEMU_DEVICE models" 0 "^kgrade virtual T4 \(emulated\), compute capability 7\.5$" -- \
    env KGEMU_DEVICE=t4 "$KGRADE" run "$TMP/device_name"
vector_add="$(dirname "$KGRADE")/tests/gpu/test_vector_add_drv"
if [[ -x "$vector_add" ]]; then
    expect "tests/gpu's vectorAddDrv runs under kgrade run" 0 "" -- run "$vector_add"
else
    failed=$((failed + 1))
    echo "FAIL tests/gpu's vectorAddDrv is not built ($vector_add): make $vector_add"
fi
if ! ldconfig -p | grep -q 'libcuda\.so\.1 '; then
    expect "... and would not start without it (no CUDA driver here)" 127 "libcuda.so.1" -- "$TMP/device_name"
fi

# ------------------------------------------------------------ numba
if ! "$PYTHON" -c 'import numba' 2>/dev/null; then
    echo "test_run.sh: numba's part skipped: $PYTHON has no numba (apt-get install python3-numba)"
    finish
    exit
fi
expect "a plain Python program imports nothing of numba's or the shims'" 0 "^\[\] ShimsOnImport$" -- \
    run "$PYTHON" -c 'import sys
print(sorted(m for m in sys.modules if m.startswith(("numba", "kgrade", "importlib.util"))),
      type(sys.meta_path[0]).__name__)'
mkdir -p "$TMP/other-site"
printf 'print("the hidden sitecustomize ran")\n' >"$TMP/other-site/sitecustomize.py"
expect "the sitecustomize that kgrade's hides still runs" 0 "^the hidden sitecustomize ran$" -- \
    env PYTHONPATH="$TMP/other-site" "$KGRADE" run "$PYTHON" -c pass

# numba 0.56 cannot find CUDA 13's libNVVM by itself: compiling a kernel
# with a float64 atomic add works only with the shims.
cat >"$TMP/compile.py" <<'PY'
from numba import cuda, float64

@cuda.jit
def total(values, out):
    cuda.atomic.add(out, 0, values[cuda.grid(1)])

ptx, _ = cuda.compile_ptx(total, (float64[::1], float64[::1]), cc=(9, 0))
print("compiled:", "atom.global.add.f64" in ptx or "red.global.add.f64" in ptx)
print("libNVVM:", cuda.cuda_paths.get_cuda_paths()["nvvm"].info)
PY
expect "with the shims numba compiles with CUDA 13's libNVVM" 0 "^compiled: True$" -- \
    run "$PYTHON" "$TMP/compile.py"
expect "... the toolkit's libNVVM, which kgrade was built with" 0 "^libNVVM: $CUDA_HOME/lib64/libnvvm.so$" -- \
    run "$PYTHON" "$TMP/compile.py"
expect "... and without them it cannot (the test's control)" 1 "NvvmSupportError: libNVVM cannot be found" -- \
    "$PYTHON" "$TMP/compile.py"
expect "a toolkit without libNVVM: a warning, numba runs as it would have" 0 \
    "kgrade run: the CUDA toolkit at $TMP/none has no libNVVM or libdevice: numba runs without" -- \
    env PYTHONPATH="$(dirname "$KGRADE")/run-site" KGRADE_CUDA_HOME="$TMP/none" \
    "$PYTHON" -c 'import numba.cuda'

# ------------------------------------------------------------ numba's runtime
# numba's own runtime (device arrays, a @cuda.jit launch, events) on the
# virtual GPU, with the device's own compute capability.
cat >"$TMP/runtime.py" <<'PY'
import runpy

import numpy as np
from numba import cuda

# the course's add_kernel, a known-good solution of vector-add
add = runpy.run_path("exercises/vector-add/solutions/passed__grid_index.py")["add_kernel"]
n = 100003
x = np.arange(n, dtype=np.float32)
d_x, d_y = cuda.to_device(x), cuda.to_device(2 * x)
d_out = cuda.device_array_like(d_x)
start, end = cuda.event(), cuda.event()
start.record()
add[(n + 255) // 256, 256](d_x, d_y, d_out)
end.record()
end.synchronize()
assert np.array_equal(d_out.copy_to_host(), 3 * x)
device = cuda.get_current_device()
print("device:", device.name.decode(), device.compute_capability)
print("sum checked, kernel time positive:", cuda.event_elapsed_time(start, end) > 0)
PY
expect "numba's runtime launches a kernel on the virtual GPU, timed with events" 0 \
    "^sum checked, kernel time positive: True$" -- run "$PYTHON" "$TMP/runtime.py"
expect "... on the virtual H100, compute capability (9, 0) from the driver" 0 \
    "^device: kgrade virtual H100 \(emulated\) \(9, 0\)$" -- run "$PYTHON" "$TMP/runtime.py"
expect "... on the GPU KGEMU_DEVICE models, (7, 5) for a T4" 0 \
    "^device: kgrade virtual T4 \(emulated\) \(7, 5\)$" -- \
    env KGEMU_DEVICE=t4 "$KGRADE" run "$PYTHON" "$TMP/runtime.py"
expect "... and without kgrade run there is no CUDA driver (the test's control)" 1 "CudaSupportError" -- \
    env -u NUMBA_CUDA_DRIVER "$PYTHON" "$TMP/runtime.py"

# What the course's notebooks use besides: pinned host memory, a stream
# between two events, a CUDA gufunc (numba builds it with the driver),
# mapped host memory a kernel writes, and cuda.close().
cat >"$TMP/course.py" <<'PY'
import numpy as np
from numba import cuda, guvectorize


@guvectorize(["void(float32[:], float32[:])"], "(n)->()", target="cuda")
def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value * value
    out[0] = acc ** 0.5


@cuda.jit
def scale(values, factor):
    i = cuda.grid(1)
    if i < values.size:
        values[i] *= factor


n = 1 << 16
host = cuda.pinned_array(n, dtype=np.float32)
host[:] = np.arange(n)
stream = cuda.stream()
start, end = cuda.event(), cuda.event()
start.record(stream)
d_values = cuda.to_device(host, stream=stream)
scale[n // 256, 256, stream](d_values, 2.0)
d_values.copy_to_host(host, stream=stream)
end.record(stream)
stream.synchronize()
assert np.array_equal(host, 2 * np.arange(n, dtype=np.float32))
print("pinned, stream, events:", cuda.event_elapsed_time(start, end) > 0)
print("l2_norm:", l2_norm(np.full((4, 9), 2, dtype=np.float32)))
mapped = cuda.mapped_array(256, dtype=np.float32)
mapped[:] = 1
scale[1, 256](mapped, 3.0)
cuda.synchronize()
print("mapped:", mapped.sum())
cuda.close()
print("closed")
PY
course=$(run "$PYTHON" -W ignore "$TMP/course.py" 2>&1)
expect "the course's runtime: pinned memory, a stream between events" 0 "^pinned, stream, events: True$" -- \
    echo "$course"
expect "... a CUDA gufunc" 0 "^l2_norm: \[6\. 6\. 6\. 6\.\]$" -- echo "$course"
expect "... mapped host memory a kernel writes" 0 "^mapped: 768\.0$" -- echo "$course"
expect "... and cuda.close()" 0 "^closed$" -- echo "$course"

# ------------------------------------------------------------ the Jupyter kernel
kernel_json() { cat "$1/kernels/kgrade/kernel.json"; }
expect "jupyter install --prefix DIR: under DIR/share/jupyter/kernels/kgrade" 0 \
    "^Installed the Jupyter kernel 'kgrade' .* in $TMP/prefix/share/jupyter/kernels/kgrade$" -- \
    "$KGRADE" jupyter install --prefix "$TMP/prefix"
kgrade_abs="$(cd "$(dirname "$KGRADE")" && pwd)/kgrade"
expect "... its kernel.json starts Debian's ipykernel through this kgrade's run" 0 "^true$" -- jq -e \
    --arg kgrade "$kgrade_abs" '.argv == [$kgrade, "run", "/usr/bin/python3", "-m", "ipykernel_launcher",
        "-f", "{connection_file}"] and .display_name == "Python 3 (kgrade virtual GPU)"
        and .language == "python"' "$TMP/prefix/share/jupyter/kernels/kgrade/kernel.json"
expect "--user honours JUPYTER_DATA_DIR" 0 "in $TMP/jdata/kernels/kgrade$" -- \
    env JUPYTER_DATA_DIR="$TMP/jdata" "$KGRADE" jupyter install --user
expect "... else XDG_DATA_HOME" 0 "in $TMP/xdg/jupyter/kernels/kgrade$" -- \
    env -u JUPYTER_DATA_DIR XDG_DATA_HOME="$TMP/xdg" "$KGRADE" jupyter install --user
expect "... else ~/.local/share/jupyter" 0 "in $TMP/home/.local/share/jupyter/kernels/kgrade$" -- \
    env -u JUPYTER_DATA_DIR -u XDG_DATA_HOME HOME="$TMP/home" "$KGRADE" jupyter install --user
if "$PYTHON" -c 'import jupyter_client' 2>/dev/null; then
    expect "... where Jupyter itself finds a user's kernel" 0 "^$TMP/home/.local/share/jupyter/kernels/kgrade$" -- \
        env -u JUPYTER_DATA_DIR -u XDG_DATA_HOME -u JUPYTER_PATH HOME="$TMP/home" "$PYTHON" -c \
        'from jupyter_client.kernelspec import KernelSpecManager as M; print(M().find_kernel_specs()["kgrade"])'
    expect "... and the system folder is Jupyter's first (/usr/local/share/jupyter)" 0 "^/usr/local/share/jupyter$" -- \
        "$PYTHON" -c 'from jupyter_core.paths import SYSTEM_JUPYTER_PATH; print(SYSTEM_JUPYTER_PATH[0])'
fi
expect "KGRADE_PYTHON names the kernel's Python; a missing one is warned about" 0 \
    "warning: $TMP/none is not there: the kernel needs it, with ipykernel and numba" -- \
    env KGRADE_PYTHON="$TMP/none" "$KGRADE" jupyter install --prefix "$TMP/other"
expect "... and written as it was given" 0 "^$TMP/none$" -- \
    jq -r '.argv[2]' "$TMP/other/share/jupyter/kernels/kgrade/kernel.json"
expect "--user and --prefix together are a usage error" 2 "not both" -- \
    "$KGRADE" jupyter install --user --prefix "$TMP/p2"
expect "a folder that cannot be made is named" 2 "cannot make the folder /proc/none/share/jupyter/kernels/kgrade" -- \
    "$KGRADE" jupyter install --prefix /proc/none

if ! "$PYTHON" -c 'import nbclient, ipykernel' 2>/dev/null; then
    echo "FAIL the notebook through the kernel: $PYTHON has no nbclient or ipykernel" \
        "(deploy/install-deps.sh installs python3-nbclient and python3-ipykernel)"
    failed=$((failed + 1))
    finish
    exit
fi
cat >"$TMP/cells.py" <<'PY'
import os
import numpy as np
from numba import cuda
print("driver:", os.environ["NUMBA_CUDA_DRIVER"])
# %%
@cuda.jit
def square(values):
    i = cuda.grid(1)
    if i < values.size:
        values[i] = values[i] * values[i]
# %%
d_values = cuda.to_device(np.arange(1000, dtype=np.int64))
square[8, 128](d_values)
squares = d_values.copy_to_host()
assert (squares == np.arange(1000) ** 2).all()
print("sum of squares:", squares.sum())
# %%
print("device:", cuda.get_current_device().name.decode())
PY
# Jupyter looks in the user's data folder first: an empty one, so that the kernel is this one.
export JUPYTER_PATH="$TMP/prefix/share/jupyter" JUPYTER_DATA_DIR="$TMP/no-kernels" \
    JUPYTER_RUNTIME_DIR="$TMP/runtime" IPYTHONDIR="$TMP/ipython"
notebook=$("$PYTHON" tests/integration/run_notebook.py kgrade "$TMP/cells.py" 2>&1)
expect "nbclient runs a notebook through the kgrade kernel" 0 "^kernel: Python 3 \(kgrade virtual GPU\)$" -- \
    echo "$notebook"
expect "... started by kgrade run: the virtual GPU is numba's driver" 0 "^driver: $DRIVER$" -- \
    echo "$notebook"
expect "... its cells' kernel launches on the virtual GPU, result checked" 0 "^sum of squares: 332833500$" -- \
    echo "$notebook"
expect "... the virtual H100" 0 "^device: kgrade virtual H100 \(emulated\)$" -- echo "$notebook"
finish
