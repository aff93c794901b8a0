"""The command line: `python3 -m kgrade_client submit [options] FILE`.

It behaves as `kgrade submit` does: the same options (--server, --token,
--exercise, --json; --language as `kgrade grade` has it), the server and
the token also from KGRADE_URL and KGRADE_TOKEN, the grading's progress
on standard error in the same words, the result on standard output as
`kgrade grade` prints it, and the same exit codes (exit_codes.py).
"""

import argparse
import os
import stat
import sys
from typing import List, Optional, TextIO

from .api import ApiClient, UnusableSettings
from .exit_codes import EXIT_INTERNAL, EXIT_USAGE, verdict_code
from .json_text import dump
from .report import text_report
from .submission import LANGUAGE_DEFAULT, LANGUAGES, Submission

SOURCE_MAX_BYTES = 64 << 20  # larger files are not read (the server takes 64 KB)


def language_of(path: str, given: Optional[str]) -> str:
    """The language `given`, else the file's name's: a name ending in ".py"
    (lower case) is numba, any other cuda; the rule of kgrade's own
    grader_language_of_file, so that both clients send the same."""
    if given:
        return given
    return "numba" if len(path) > 3 and path.endswith(".py") else LANGUAGE_DEFAULT


def write(stream: TextIO, text: str) -> None:
    """Writes UTF-8, as kgrade does, whatever the locale says."""
    stream.flush()
    if hasattr(stream, "buffer"):
        stream.buffer.write(text.encode("utf-8", "surrogateescape"))
        stream.buffer.flush()
    else:  # a stream without bytes underneath (a test's StringIO)
        stream.write(text)


def say(sentence: str) -> None:
    """One line of what is happening, on standard error, as kgrade submit says it."""
    write(sys.stderr, "kgrade submit: " + sentence + "\n")


class UnreadableSource(Exception):
    """The source file cannot be read; the text says why."""


def read_source(path: str) -> bytes:
    """The file's bytes, as source_file.c reads them; raises UnreadableSource."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise UnreadableSource("cannot read '%s': %s" % (path, error.strerror)) from error
    try:
        size = os.fstat(fd)
        if not stat.S_ISREG(size.st_mode):
            raise UnreadableSource("'%s' is not a regular file" % path)
        if size.st_size > SOURCE_MAX_BYTES:
            raise UnreadableSource("'%s' is %d bytes; a kernel source is at most a few "
                                   "kilobytes" % (path, size.st_size))
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError as error:
        raise UnreadableSource("cannot read '%s': %s" % (path, error.strerror)) from error
    finally:
        os.close(fd)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m kgrade_client",
        description="Submit kernels to a kgrade server, as `kgrade submit` does.")
    commands = parser.add_subparsers(dest="command", metavar="submit", required=True)
    submit = commands.add_parser(
        "submit", help="submit a kernel to a kgrade server and wait for the verdict",
        description="Submits FILE to the server, shows the grading progress, prints the "
        "result like `kgrade grade` and exits with the same codes: 0 passed, 1 another "
        "verdict, 2 a request the server refuses, 3 internal_error, 4 when the server is "
        "unreachable or refuses the token.")
    submit.add_argument("--server", metavar="URL", default=os.environ.get("KGRADE_URL"),
                        help="the kgrade server, e.g. https://kgrade.example "
                        "(default: $KGRADE_URL)")
    submit.add_argument("--token", metavar="TOKEN", default=os.environ.get("KGRADE_TOKEN"),
                        help="an API token, from the tokens page (default: $KGRADE_TOKEN)")
    submit.add_argument("--exercise", metavar="ID", required=True,
                        help="the exercise to grade against")
    submit.add_argument("--language", choices=LANGUAGES,
                        help="the kernel's language (default: numba for .py, else cuda)")
    submit.add_argument("--json", action="store_true", help="print the result as JSON")
    submit.add_argument("file", metavar="FILE", help="the kernel: FILE.cu or FILE.py")
    return parser


def submit(args: argparse.Namespace) -> int:
    """Submits args.file and prints its result; returns the exit code."""
    if not args.server or not args.token:
        say("--server and --token are required (or KGRADE_URL and KGRADE_TOKEN)")
        return EXIT_USAGE
    try:
        source = read_source(args.file)
    except UnreadableSource as error:
        say(str(error))
        return EXIT_USAGE
    try:
        client = ApiClient(args.server, args.token)
    except UnusableSettings as error:
        say(str(error))
        return EXIT_USAGE
    submission = Submission(client, say)
    outcome = submission.run(args.exercise, source, language_of(args.file, args.language))
    if outcome.submission is None:
        return outcome.code
    result = outcome.submission.get("result")
    if not isinstance(result, dict):
        say("the server holds no result for submission %d" % submission.id)
        return EXIT_INTERNAL
    write(sys.stdout, dump(result) if args.json
          else text_report(result, os.path.basename(args.file), source))
    return verdict_code(result.get("verdict"))


def main(argv: Optional[List[str]] = None) -> int:
    """The command line; returns the exit code."""
    args = _parser().parse_args(argv)
    return submit(args)


def run() -> None:
    """Runs the command line and exits with its code (the zip's entry point)."""
    sys.exit(main())
