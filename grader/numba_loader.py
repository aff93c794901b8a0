"""How kgrade's Python jobs run a student's Numba module and say its errors.

Shared by the Numba front end (grader/numba_compile.py, which compiles the
module's kernels with no driver) and the host job (grader/numba_host.py,
which calls the module's host function on a served GPU): both run with
Debian's ``python3 -I -B`` in the sandbox, with this file and numba's shims
(numba_shims.py, loaded here) beside them. It holds what the two do alike:

- files beside the script loaded by their path (load_beside);
- the student's module run in a namespace of its own, its source in
  Python's line cache so that numba's messages and tracebacks quote it
  (load_module);
- an error said at the student's file and line, in a line or two
  (error_position, summary, traceback_text);
- exec forbidden from the start (forbid_exec), and the process ended
  without the interpreter's teardown (exit_now).

Loaded by the scripts with importlib by its path, as it loads the shims:
python3 -I puts no script folder on sys.path.
"""

import importlib.util
import linecache
import os
import re
import sys
import traceback

# Bound before any student module runs, which may rebind os._exit.
_exit = os._exit


def load_beside(name):
    """The module `name` from its file beside this one, by its path:
    python3 -I puts no script folder on sys.path, and the sandbox shows
    that folder's files, not its listing, which sys.path's finder reads."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


numba_shims = load_beside("numba_shims")

TRACEBACK_FRAMES = 3  # the student's last frames a traceback_text shows


# ------------------------------------------------------ the student's module

def numba_path(file_name):
    """The name numba reads a source file's lines under (ir.Loc._get_path:
    the file's path relative to the current folder)."""
    try:
        return os.path.relpath(file_name)
    except (ValueError, OSError):
        return os.path.abspath(file_name)


def register_source(source, file_name):
    """Puts the student's source in Python's line cache under the names
    numba and tracebacks look it up by, so that numba's messages quote the
    student's code (without it: "<source missing, REPL/exec in use?>", the
    module being compiled from a string). No modification time: the cache
    keeps it (linecache.checkcache drops only entries of files it can stat)."""
    lines = source.splitlines(True)
    for name in {file_name, numba_path(file_name)}:
        linecache.cache[name] = (len(source), None, lines, name)


def load_module(source, file_name):
    """Runs the student's module in a namespace of its own."""
    register_source(source, file_name)
    namespace = {"__name__": "__kgrade_submission__", "__file__": file_name}
    code = compile(source, file_name, "exec")
    exec(code, namespace)  # the student's module-level code: in the sandbox only
    return namespace


# ------------------------------------------------ errors at the student's line

# numba's location of a fault in its messages (ir.Loc.strformat), innermost
# first: in a device function, before the kernel's line that calls it.
NUMBA_LOCATION = re.compile(r'^File "(.*)", line (\d+):$', re.MULTILINE)


def numba_lines(error, file_name):
    """The lines of the student's file that numba's message names, the
    faulty one (innermost) first."""
    paths = {file_name, numba_path(file_name)}
    return [int(line) for path, line in NUMBA_LOCATION.findall(str(error)) if path in paths]


def student_frames(error, file_name):
    """The traceback's frames in the student's file, outermost first."""
    return [frame for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename == file_name]


def error_position(error, file_name):
    """The line and column of the student's source an exception points at:
    for numba's error, the line at fault (in a device function the kernel
    calls, that function's line, not the call's), its column when numba
    gives one."""
    if isinstance(error, SyntaxError):
        return error.lineno, error.offset
    loc = getattr(error, "loc", None)
    if loc is not None and getattr(loc, "line", None):
        line = (numba_lines(error, file_name) or [loc.line])[0]
        return line, getattr(loc, "col", None) if line == loc.line else None
    frames = student_frames(error, file_name)
    return (frames[-1].lineno if frames else None), None


def utf8_cut(text, size):
    """`text` in at most `size` bytes of UTF-8, as kgrade reads its limits."""
    return text.encode("utf-8", "replace")[:size].decode("utf-8", "ignore")


def first_lines(text, count=40):
    return "\n".join(line for line in str(text).strip().splitlines()[:count])


# numba's framing of a typing error: which pipeline step, where, how many
# candidates; the lines between say what is wrong.
NUMBA_FRAMING = ("Failed in ", "During: ", "File \"", "<source elided>", "There are ",
                 "- Of which", "Overload of function", "With argument(s)", "No match")


def said_lines(error):
    """The lines of numba's error that say what is wrong: not its framing,
    nor the source it quotes under each location (up to a blank line)."""
    said, quoting = [], False
    for line in str(error).splitlines():
        quoting = (quoting or bool(NUMBA_LOCATION.match(line.strip()))) and bool(line.strip())
        text = line.strip()
        if not quoting and text and not text.startswith(NUMBA_FRAMING) \
                and not text[:1].isdigit():  # numba quotes some source as "7 |  ..."
            said.append(text)
    return said


def summary(error):
    """What is wrong in a line or two: a Python error's own words, or the
    heart of numba's typing error ("No implementation of function ...
    found for signature: >>> add(float32, Literal[str](text))")."""
    if isinstance(error, SyntaxError):
        return "%s: %s" % (type(error).__name__, error.msg)
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = said_lines(error)
    text = " ".join(said[:2]) if said else (lines[0] if lines else type(error).__name__)
    if not text.startswith(type(error).__name__) and not hasattr(error, "loc"):
        text = "%s: %s" % (type(error).__name__, text)
    return text


def frame_text(file_name, line, function=None):
    """A traceback's lines for `line` of the student's file, with its code."""
    where = 'File "%s", line %d' % (file_name, line)
    code = linecache.getline(file_name, line).strip()
    return [where + (", in %s" % function if function else "")] + (["    " + code] if code else [])


def traceback_text(error, file_name, size):
    """The traceback's last lines, in at most `size` bytes: the student's
    last frames (file, line, code), numba's line at fault when it names
    another, then what is wrong (summary)."""
    lines = []
    frames = student_frames(error, file_name)[-TRACEBACK_FRAMES:]
    for frame in frames:
        lines += frame_text(file_name, frame.lineno, frame.name)
    line, _ = error_position(error, file_name)
    if line and (not frames or frames[-1].lineno != line):
        lines += frame_text(file_name, line)
    lines.append(summary(error))
    return utf8_cut("\n".join(lines), size)


# ------------------------------------------------------------- the process

# seccomp: the architectures this knows, with execve's and execveat's numbers
AUDIT_ARCH = {"x86_64": (0xC000003E, 59, 322), "aarch64": (0xC00000B7, 221, 281)}


def forbid_exec():
    """From now on execve and execveat kill the process, as the C worker's
    sandbox_forbid_exec does: the sandbox lets a job exec once, to start.
    A classic BPF program through prctl, since Python has no libseccomp."""
    import ctypes
    import platform
    arch, execve, execveat = AUDIT_ARCH[platform.machine()]
    ld_arch, ld_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)  # BPF_LD|BPF_W|BPF_ABS
    program = [ld_arch, (0x15, 0, 3, arch),  # BPF_JMP|BPF_JEQ|BPF_K: other arches allowed here
               ld_nr, (0x15, 2, 0, execve), (0x15, 1, 0, execveat),
               (0x06, 0, 0, 0x7FFF0000),   # BPF_RET: SECCOMP_RET_ALLOW
               (0x06, 0, 0, 0x80000000)]   # SECCOMP_RET_KILL_PROCESS

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                    ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    code = (Instruction * len(program))(*[Instruction(*i) for i in program])
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if (libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0 or
            libc.prctl(pr_set_seccomp, seccomp_mode_filter,
                       ctypes.byref(Program(len(program), code)), 0, 0) != 0):
        raise OSError(ctypes.get_errno(), "the exec filter could not be installed")


def exit_now(status=0):
    """Ends the process once its last word is out, without the
    interpreter's teardown (about 0.1 s of numba's and the module's objects
    freed one by one, and whatever atexit handlers the module registered):
    the grading waits for this process to end."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the module's own stream: nothing more of it is read
            pass
    _exit(status)
