"""The exit codes of `kgrade submit` (DESIGN.md), which this client shares.

0 passed, 1 a verdict other than passed, 2 a request the server refused
(an unknown exercise, a source too large, not UTF-8) or a usage error,
3 kgrade's own fault (internal_error, an answer that is not kgrade's),
4 the server unreachable, refusing the token, or busy past our patience.
"""

from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_UNREACHABLE = 4


def verdict_code(verdict: Any) -> int:
    """The exit code a verdict gives: 0 passed, 3 internal_error or none, else 1."""
    if verdict == "passed":
        return EXIT_OK
    if not isinstance(verdict, str) or verdict == "internal_error":
        return EXIT_INTERNAL
    return EXIT_FAILED


def refusal_code(status: int) -> int:
    """The exit code of a request the server did not take (status 0: not reached)."""
    if status in (0, 401, 403, 429, 503):
        return EXIT_UNREACHABLE
    return EXIT_INTERNAL if status >= 500 else EXIT_USAGE
