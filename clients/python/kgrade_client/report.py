"""The result of a grading as `kgrade submit` prints it, to the byte.

The twin of server/grade_report.c: the verdict and its sentence, the
compiler's diagnostics with the source line and a caret, the place of a
memory error, the time against the reference's, the device and the seed,
the kernels' output (json_text.py writes --json's grade JSON). A value
the result lacks is printed as C's printf prints a NULL string, "(null)",
so that both commands print the same lines for the same result.
"""

from typing import Any, List, Optional

from .json_text import field, field_list, is_integer, is_number
from .numbers import ms_text, ratio_text

SOURCE_LINE_SHOWN_MAX = 200  # bytes of a quoted source line
KERNEL_OUTPUT_LINES = 20  # lines of the kernels' printf output shown


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "(null)"


def _number(value: Any) -> float:
    return float(value) if is_number(value) else 0.0


def source_line(source: bytes, line: int) -> Optional[bytes]:
    """Line `line` (1-based) of the source, without its end; None past the end."""
    if line < 1:
        return None
    lines = source.split(b"\n")
    if line > len(lines) or (line == len(lines) and lines[-1] == b""):
        return None
    text = lines[line - 1]
    return text[:-1] if text.endswith(b"\r") else text


def _quoted_line(source: bytes, line: int, column: int) -> List[str]:
    """The source line as "  LLLLL | text", and a caret under `column`."""
    text = source_line(source, line)
    if text is None:
        return []
    shown = text[:SOURCE_LINE_SHOWN_MAX]
    out = ["  %5d | %s" % (line, shown.decode("utf-8", "ignore"))]
    if column <= 0:
        return out
    pad, characters = "", 0
    for byte in shown:
        if characters >= column - 1:
            break
        if byte & 0xC0 == 0x80:
            continue  # a UTF-8 continuation byte: same character
        pad += "\t" if byte == 0x09 else " "
        characters += 1
    return out + ["        | " + pad + "^"]


def _diagnostics(result: dict, file_name: str, source: bytes) -> List[str]:
    out = []
    for d in field_list(field(result, "compile"), "diagnostics"):
        line, column = field(d, "line"), field(d, "column")
        where = "  "
        if is_integer(line) and is_integer(column):
            where = "  %s:%d:%d: " % (file_name, line, column)
        elif is_integer(line):  # a column not known
            where = "  %s:%d: " % (file_name, line)
        out.append("%s%s: %s" % (where, _text(field(d, "severity")), _text(field(d, "message"))))
        out += _quoted_line(source, line if is_integer(line) else 0,
                            column if is_integer(column) else 0)
    for d in field_list(result, "diagnostics"):
        line = field(d, "line")
        if not is_integer(line):  # the message is the verdict's: just the place
            continue
        out.append("  at %s:%d" % (file_name, line))
        out += _quoted_line(source, line, 0)
    return out


def time_text(perf: dict) -> str:
    """"12.3 ms, reference 9.85 ms: ratio 1.25× (bar 1.25×), modeled"."""
    bound = field(perf, "lower_bound") is True
    runs = field(field(perf, "timing"), "runs")
    how = ", medians of %d runs" % runs if is_integer(runs) and runs > 1 else ""
    return "%s%s, reference %s: ratio %s%s (bar %s)%s%s" % (
        "at least " if bound else "",
        ms_text(_number(field(perf, "student_ms"))),
        ms_text(_number(field(perf, "reference_ms"))),
        "> " if bound else "",
        ratio_text(_number(field(perf, "ratio"))),
        ratio_text(_number(field(perf, "max_ratio"))),
        how,
        ", modeled" if field(perf, "estimated") is True else "",
    )


def _kernel_output(result: dict) -> List[str]:
    text = field(result, "output")
    if not isinstance(text, str) or not text:
        return []
    out = ["  the kernel printed:"]
    while len(out) <= KERNEL_OUTPUT_LINES and text:
        line, _, text = text.partition("\n")
        out.append("  | " + line)
    if text:
        out.append('  | ... (the rest is in --json\'s "output")')
    return out


def text_report(result: dict, file_name: str, source: bytes) -> str:
    """The result as `kgrade grade` and `kgrade submit` print it."""
    perf = field(result, "performance")
    lines = ["%s: %s: %s" % (_text(field(result, "exercise")), _text(field(result, "verdict")),
                             _text(field(result, "message")))]
    lines += _diagnostics(result, file_name, source)
    if is_number(field(perf, "student_ms")):
        lines.append("  time: " + time_text(perf))
    lines.append("  on %s; seed %s%s" % (
        _text(field(field(result, "device"), "name")), _text(field(result, "seed")),
        "" if field(result, "assessment") is True else "; not an assessment run (--n)"))
    lines += _kernel_output(result)
    return "\n".join(lines) + "\n"
