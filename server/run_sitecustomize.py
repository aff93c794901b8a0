"""`kgrade run`'s sitecustomize: numba's shims for this CUDA toolkit, applied
when the program imports numba.cuda.

`kgrade run` (server/cmd_run.c) puts the folder that holds this file
(run-site/ beside the binary) first on the PYTHONPATH of the program it
starts, with NUMBA_CUDA_DRIVER naming the virtual GPU and KGRADE_CUDA_HOME
the toolkit. Python imports this module as it starts; it only adds an
import hook, so a program that never imports numba.cuda starts as it did
without it, and one that does needs nothing of its own: right after
numba.cuda's own code has run, the hook applies numba_shims.py (installed
beside kgrade, one folder up: the same shims the Numba front end applies).
The compute capability is the driver's. Then the sitecustomize this one
hides on sys.path, if any (Debian's), runs as it would have.
"""

import os
import sys

HOOKED = "numba.cuda"
HERE = os.path.dirname(os.path.abspath(__file__))
SHIMS = os.path.join(os.path.dirname(HERE), "numba_shims.py")
DEFAULT_CUDA_HOME = "/usr/local/cuda"


def warn(message):
    sys.stderr.write("kgrade run: %s\n" % message)


def load_file(name, path):
    """The module in the file `path`, run under `name` (not on sys.path)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def apply_shims():
    """The shims, numba.cuda being imported. When they cannot apply, numba
    runs without them, as it would have: a warning says why."""
    import numba
    shims = load_file("kgrade_numba_shims", SHIMS)
    if not shims.is_supported(numba.__version__):
        warn("numba %s is not a version kgrade's shims know (%s): it runs without them; "
             "use Debian's /usr/bin/python3 (python3-numba)" %
             (numba.__version__, ", ".join(shims.SUPPORTED_NUMBA)))
        return
    try:
        shims.apply(os.environ.get("KGRADE_CUDA_HOME") or DEFAULT_CUDA_HOME)
    except shims.ToolkitMissing as error:
        warn("%s: numba runs without kgrade's shims" % error)


class ShimsOnImport:
    """A finder of sys.meta_path (importlib.abc.MetaPathFinder's protocol,
    without importing it: start-up stays quick). Finds numba.cuda as the
    other finders do, and has its loader apply the shims once the package's
    own code has run; then leaves sys.meta_path."""

    def find_spec(self, name, path, target=None):
        if name != HOOKED:
            return None
        import importlib.util
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            apply_shims()

        spec.loader.exec_module = exec_module
        return spec


def run_hidden_sitecustomize():
    """The next sitecustomize.py on sys.path, which this one hides, run in
    this module's place as Python would have run it."""
    for folder in sys.path:
        path = os.path.join(folder, "sitecustomize.py")
        if folder and os.path.abspath(folder) != HERE and os.path.isfile(path):
            with open(path, "rb") as source:
                code = compile(source.read(), path, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": path})
            return


sys.meta_path.insert(0, ShimsOnImport())
run_hidden_sitecustomize()
