# Hostile: reads what it can of the host (users, kgrade's environment, the exercise folder with the
# host-form reference, the other processes it can see) and raises an exception carrying it all, so
# that it shows in the verdict's traceback. Nothing of the host is there to read: it read 0 files.
import glob
import math
import os

exp = math.exp
normalize = weigh = activate = None

WANTED = ["/etc/passwd", "/etc/shadow", "/proc/1/environ", "/proc/self/environ", "/proc/1/cmdline",
          "reference_host.py", "exercise.json", "../reference_host.py",
          "tests/hostile/numba-host/exercise.json",
          "exercises/hidden-layer/reference_host.py", "/work/main/exercises/hidden-layer/reference_host.py"]


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    found = []
    paths = WANTED + glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline") + \
        glob.glob(os.path.join(os.getcwd(), "**", "reference_host.py"), recursive=True)
    for path in paths:
        try:
            with open(path, "rb") as f:
                found.append("%s: %r" % (path, f.read(2000)))
        except OSError:
            pass
    raise RuntimeError("read %d of %d files: %s" % (len(found), len(paths), "; ".join(found)))
