"""A numba program that runs on kgrade's virtual GPU through numba's own
CUDA runtime, for tests/numba/test_numba_runtime.py.

Run as ``python3 numba_runtime_program.py SCENARIO...`` with
NUMBA_CUDA_DRIVER naming build/emulator/libcuda.so.1: it applies
grader/numba_compile.py's shims (CUDA 13's libNVVM, the compute
capability), imports numba.cuda, runs each scenario and prints one JSON
object: {scenario: what it measured}. numba binds every driver call it
knows at its first use, keeps global state and tears the context down at
exit, so each run is a process of its own.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
import numba_compile  # noqa: E402

sys.path.insert(0, HERE)

numba_compile.apply_shims(os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"), (9, 0))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

N = 1000
BLOCK = 128


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def grid(n):
    return (n + BLOCK - 1) // BLOCK


def launch(kernel=axpy):
    """Device arrays in, a kernel, the result back."""
    x = np.arange(N, dtype=np.float32)
    y = np.ones(N, dtype=np.float32)
    out = cuda.device_array_like(x)
    kernel[grid(N), BLOCK](np.float32(2), cuda.to_device(x), cuda.to_device(y), out)
    got = out.copy_to_host()
    return {"max_error": float(np.abs(got - (2 * x + y)).max()),
            "device": cuda.get_current_device().name.decode()}


def twice_in_place(a):
    """a[i] *= 2 on the device, through whatever pointer numba passes."""
    scale[grid(a.size), BLOCK](a, np.float32(2))


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


def pinned():
    """cuda.pinned_array (cuMemHostAlloc) and cuda.pinned (cuMemHostRegister)
    as the host side of copies."""
    host = cuda.pinned_array(N, dtype=np.float32)
    host[:] = np.arange(N, dtype=np.float32)
    d = cuda.to_device(host)
    twice_in_place(d)
    d.copy_to_host(host)
    registered = np.arange(N, dtype=np.float32)
    with cuda.pinned(registered):
        d2 = cuda.to_device(registered)
        twice_in_place(d2)
        d2.copy_to_host(registered)
    expected = 2 * np.arange(N, dtype=np.float32)
    return {"pinned_ok": bool((host == expected).all()),
            "registered_ok": bool((registered == expected).all())}


def mapped():
    """cuda.mapped_array: the kernel reads and writes host memory, no copy."""
    m = cuda.mapped_array(N, dtype=np.float32)
    m[:] = np.arange(N, dtype=np.float32)
    twice_in_place(m)
    cuda.synchronize()
    registered = np.arange(N, dtype=np.float32)
    with cuda.mapped(registered) as dm:
        twice_in_place(dm)
        cuda.synchronize()
    expected = 2 * np.arange(N, dtype=np.float32)
    return {"mapped_ok": bool((m == expected).all()),
            "registered_ok": bool((registered == expected).all())}


def managed():
    """cuda.managed_array: one pointer for host and device."""
    m = cuda.managed_array(N, dtype=np.float32)
    m[:] = np.arange(N, dtype=np.float32)
    twice_in_place(m)
    cuda.synchronize()
    return {"managed_ok": bool((m == 2 * np.arange(N, dtype=np.float32)).all())}


def streams_events():
    """Copies and a launch in a stream between two events, a callback
    after them, the stream synchronized."""
    s = cuda.stream()
    x = np.arange(N, dtype=np.float32)
    start, end = cuda.event(), cuda.event()
    seen = []
    start.record(s)
    d = cuda.to_device(x, stream=s)
    scale[grid(N), BLOCK, s](d, np.float32(3))
    got = d.copy_to_host(stream=s)
    end.record(s)
    s.add_callback(lambda stream, status, arg: seen.append((status, arg)), "done")
    s.synchronize()
    end.synchronize()
    return {"result_ok": bool((got == 3 * x).all()),
            "elapsed_ms": cuda.event_elapsed_time(start, end),
            "callbacks": seen}


def profiler():
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        twice_in_place(cuda.to_device(np.ones(N, dtype=np.float32)))
    return {"ok": True}


def ipc():
    """An IPC handle: the virtual GPU's memory is private to its process."""
    from numba.cuda.cudadrv.driver import CudaAPIError
    try:
        cuda.to_device(np.ones(N, dtype=np.float32)).get_ipc_handle()
    except CudaAPIError as e:
        return {"error": str(e)}
    return {"error": None}


@cuda.jit
def poke(a, i):
    a[i] = 1


def mapped_fault():
    """A kernel writing one past the end of a mapped array faults as past a
    device array does; the virtual GPU names the host buffer
    (kgemu_last_fault, kgemu.h, on the library numba loaded)."""
    import ctypes
    from numba_exercises import Fault
    from numba.cuda.cudadrv.driver import CudaAPIError
    m = cuda.mapped_array(100, dtype=np.int32)
    poke[1, 1](m, 100)
    try:
        cuda.synchronize()
        error = None
    except CudaAPIError as e:
        error = str(e)
    fault = Fault()
    ctypes.CDLL(os.environ["NUMBA_CUDA_DRIVER"]).kgemu_last_fault(ctypes.byref(fault))
    return {"error": error, "message": fault.message.decode(errors="replace")}


def close():
    """cuda.close() with frees of memory, a stream and an event pending, then
    work again in a fresh context, then close again: no error, at exit
    included. (numba caches a kernel's CUfunction per device, not per
    context, so the work after close() is a kernel new to it: on a GPU too
    a function of the closed context is gone.)"""
    first = launch()
    made = [cuda.pinned_array(N, dtype=np.float32), cuda.mapped_array(N, dtype=np.float32),
            cuda.stream(), cuda.event(), cuda.to_device(np.ones(N))]
    del made  # numba defers the frees: close() makes them, its context popped
    cuda.close()
    second = launch(cuda.jit(axpy.py_func))
    cuda.close()
    return {"first": first["max_error"], "second": second["max_error"]}


TRANSFER_BYTES = 64 << 20
SPIN_THREADS = 32
SPIN_STEPS = 100000


@cuda.jit
def spin(out, steps):
    """A kernel whose modeled time is a chain of dependent steps."""
    x = out[cuda.threadIdx.x]
    for _ in range(steps):
        x = x * np.float32(0.999) + np.float32(1.0)
    out[cuda.threadIdx.x] = x


def timed(work):
    """cuda.event_elapsed_time around `work`, with events on the default
    stream, as the course's lesson on transfers times copies."""
    start, end = cuda.event(), cuda.event()
    start.record()
    work()
    end.record()
    end.synchronize()
    return cuda.event_elapsed_time(start, end)


def device_time():
    """kgemu_device_time (kgemu.h): where the work queued so far ends, in
    modeled ms, read from the library numba loaded."""
    import ctypes
    ms = ctypes.c_double()
    ctypes.CDLL(os.environ["NUMBA_CUDA_DRIVER"]).kgemu_device_time(ctypes.byref(ms))
    return ms.value


def transfers():
    """Copies take the modeled GPU's time: pinned and pageable arrays each
    way, a registered one, a copy overlapping a kernel of another stream,
    and a host function's device time read as the next issue's grader
    would, against events around it."""
    n = TRANSFER_BYTES // 4
    pageable = np.ones(n, dtype=np.float32)
    pinned = cuda.pinned_array(n, dtype=np.float32)
    pinned[:] = 1
    d = cuda.device_array(n, dtype=np.float32)
    out = cuda.to_device(np.zeros(SPIN_THREADS, dtype=np.float32))
    times = {"bytes": TRANSFER_BYTES,
             "htod_pinned": timed(lambda: cuda.to_device(pinned, to=d)),
             "htod_pageable": timed(lambda: cuda.to_device(pageable, to=d)),
             "dtoh_pinned": timed(lambda: d.copy_to_host(pinned)),
             "dtoh_pageable": timed(lambda: d.copy_to_host(pageable))}
    with cuda.pinned(pageable):
        times["htod_registered"] = timed(lambda: cuda.to_device(pageable, to=d))
    s1, s2 = cuda.stream(), cuda.stream()

    def kernel():
        spin[1, SPIN_THREADS, s1](out, SPIN_STEPS)

    def copy():
        cuda.to_device(pinned, stream=s2, to=d)

    def host_function():
        dx = cuda.to_device(pageable)
        spin[1, SPIN_THREADS](out, SPIN_STEPS)
        dx.copy_to_host(pageable)

    times.update(kernel=timed(kernel), copy=timed(copy),
                 both=timed(lambda: (kernel(), copy())))
    cuda.synchronize()
    before = device_time()
    host_function()
    cuda.synchronize()
    times.update(host_function=device_time() - before, host_function_events=timed(host_function))
    return times


SCENARIOS = {"launch": launch, "pinned": pinned, "mapped": mapped, "managed": managed,
             "streams_events": streams_events, "profiler": profiler, "ipc": ipc,
             "mapped_fault": mapped_fault, "close": close, "transfers": transfers}


def main():
    results = {name: SCENARIOS[name]() for name in sys.argv[1:]}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
