"""The host form's processes without a sandbox, for tests/integration/test_host_form.sh.

Starts what server/grading_job.c starts for a host-form grading, as plain
processes: two host jobs (python3 -I -B numba_host.py, the exercise's
reference_host.py and the solution), each with its driver socket on fd 4
and its calls socket on fd 5, and `kgrade worker` with fd 3 (its result
lines), fds 4-7 (the reference's driver and calls, the student's) and 8-9
(each host job's /proc/PID/stat), its usual request on standard input. Prints the worker's last line (the
verdict and the grade JSON) and its progress lines' phases.

usage: host_form_job.py KGRADE EXERCISE_FOLDER SOLUTION.py N
"""

import fcntl
import json
import os
import socket
import subprocess
import sys

PYTHON = "/usr/bin/python3"  # Debian's, with numba
NULL_FD = os.open("/dev/null", os.O_WRONLY)  # a host job's fd 3: nothing reads it
PYTHON_ENV = {  # as server/numba_job.c's python_env
    "PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
}


def with_fds(fds):
    """A preexec_fn that puts `fds` (the parent's) at 3, 4, ... in the child
    (dup2 makes them inheritable; the rest are close-on-exec, Python's
    default, so the children start with close_fds=False)."""
    def place():
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in fds]  # out of the way
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i)
    return place


def host_job(build, source_path, function, driver, calls):
    """numba_host.py on the module at `source_path`, its fds 4 and 5."""
    env = dict(PYTHON_ENV,
               NUMBA_CUDA_DRIVER=os.path.join(build, "emulator", "remote", "libcuda.so.1"),
               KGEMU_REMOTE_FD="4")
    job = subprocess.Popen(
        [PYTHON, "-I", "-B", os.path.join(build, "numba_host.py")],
        stdin=subprocess.PIPE, env=env, close_fds=False,
        preexec_fn=with_fds([NULL_FD, driver.fileno(), calls.fileno()]))
    with open(source_path) as f:
        request = {"source": f.read(), "file_name": os.path.basename(source_path),
                   "function": function}
    job.stdin.write(json.dumps(request).encode())
    job.stdin.close()
    return job


def worker_input(build, folder, n):
    """The worker's standard input: server/job_protocol.h's grade job."""
    with open(os.path.join(folder, "exercise.json"), "rb") as f:
        definition = f.read()
    function = json.loads(definition)["numba_host"]["function"]
    source = b""  # the host jobs run the modules: the grade job never sees them
    head = {"kind": "grade", "exercise": os.path.basename(folder), "file_name": "submission.py",
            "seed": "12345", "n": n, "device": "emulator", "timing": "auto",
            "emulator": os.path.join(build, "emulator", "libcuda.so.1"), "language": "numba",
            "version": "test", "reference": {}, "correctness_only": False,
            "numba": {"status": "ok", "form": "host", "function": function},
            "definition_bytes": len(definition), "source_bytes": len(source)}
    return json.dumps(head).encode() + b"\n" + definition + source, function


def main():
    kgrade, folder, solution, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    build = os.path.dirname(os.path.abspath(kgrade))
    request, function = worker_input(build, folder, n)
    pairs = [socket.socketpair(socket.AF_UNIX, kind)
             for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET) * 2]
    results_read, results_write = os.pipe()
    jobs = [host_job(build, os.path.join(folder, "reference_host.py"), function, *
                     [pair[1] for pair in pairs[0:2]]),
            host_job(build, solution, function, *[pair[1] for pair in pairs[2:4]])]
    # fds 8 and 9: each host job's /proc/PID/stat, its CPU time
    stats = [os.open("/proc/%d/stat" % job.pid, os.O_RDONLY) for job in jobs]
    worker = subprocess.Popen(
        [kgrade, "worker"], stdin=subprocess.PIPE, close_fds=False,
        preexec_fn=with_fds([results_write] + [pair[0].fileno() for pair in pairs] + stats))
    os.close(results_write)
    for fd in stats:
        os.close(fd)
    for pair in pairs:  # the processes hold them now
        pair[0].close()
        pair[1].close()
    worker.stdin.write(request)
    worker.stdin.close()
    with os.fdopen(results_read) as results:
        lines = [json.loads(line) for line in results]
    worker.wait()
    for job in jobs:  # done once the worker closed their calls; a stuck one is ended here
        try:
            job.wait(timeout=5)
        except subprocess.TimeoutExpired:
            job.kill()
            job.wait()
    phases = [line.get("phase") for line in lines]
    print("phases:", " ".join(p for p in phases if p))
    last = lines[-1] if lines else {}
    result = last.get("result", {})
    print("verdict:", last.get("verdict", last.get("phase")))
    print("message:", result.get("message", last.get("message")))
    print("form:", result.get("form"))
    print(json.dumps(result.get("correctness", {}).get("cases", []))[:2000])


if __name__ == "__main__":
    main()
