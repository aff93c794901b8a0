"""A grading's progress and result as HTML, for a notebook's output.

What report.py prints for a terminal, drawn for Jupyter: the verdict in
its colour, the server's sentence, the compiler's diagnostics and the
memory or runtime errors each with its line quoted from the cell, the
first wrong element, the time against the reference's, and a link to the
submission's page on the server. Every text that comes from the server
or from the cell is escaped: a message or a cell holding `<script>` shows
as text, never as markup. Styles are inline (a notebook keeps no style
sheet of ours) and the colours read on light and dark themes.
"""

from html import escape
from typing import Any, Iterable, List, Optional

from .json_text import field, field_list, is_integer, is_number
from .report import source_line, time_text

GREEN, ORANGE, RED, GREY = "#1a7f37", "#b35900", "#cf222e", "#6e7781"
VERDICT_COLOURS = {"passed": GREEN, "too_slow": ORANGE, "internal_error": GREY}
BOX_STYLE = "border-left:4px solid %s;padding:4px 12px;margin:4px 0;font-family:sans-serif"
QUOTE_STYLE = "margin:2px 0 6px 0;padding:2px 6px;background:rgba(127,127,127,0.12)"


def _box(colour: str, parts: Iterable[str]) -> str:
    return '<div class="kgrade" style="%s">%s</div>' % (BOX_STYLE % colour, "".join(parts))


def _quote(source: bytes, line: Any) -> str:
    """The cell's line `line`, numbered, in a <pre>; "" when it has none."""
    text = source_line(source, line) if is_integer(line) else None
    if text is None:
        return ""
    return '<pre style="%s">%5d | %s</pre>' % (
        QUOTE_STYLE, line, escape(text.decode("utf-8", "replace")))


def _diagnostics(result: dict, source: bytes) -> List[str]:
    """The compiler's diagnostics and the run's errors, each with its line."""
    out = []
    for d in field_list(field(result, "compile"), "diagnostics"):
        line, column = field(d, "line"), field(d, "column")
        where = ("line %d%s: " % (line, ", column %d" % column if is_integer(column) else "")
                 if is_integer(line) else "")
        out.append("<div>%s%s: %s</div>%s" % (
            escape(where), escape(str(field(d, "severity") or "")),
            escape(str(field(d, "message") or "")), _quote(source, line)))
    for d in field_list(result, "diagnostics"):
        line = field(d, "line")
        if is_integer(line):  # without a line the message is the verdict's
            out.append("<div>at line %d: %s</div>%s" % (
                line, escape(str(field(d, "message") or "")), _quote(source, line)))
    return out


def _value(x: Any) -> str:
    return "%.9g" % x if isinstance(x, float) else str(x)


def _first_mismatch(result: dict) -> Optional[str]:
    """"c[17] (row 0, column 17): expected 0.5, got 0.25, with n = 100"."""
    for case in field_list(field(result, "correctness"), "cases"):
        m = field(case, "first_mismatch")
        if not isinstance(m, dict):
            continue
        place = "%s[%s]" % (m.get("buffer"), _value(m.get("index")))
        if is_integer(m.get("row")) and is_integer(m.get("col")):
            place += " (row %d, column %d)" % (m["row"], m["col"])
        sizes = field(case, "sizes")
        with_sizes = ", ".join("%s = %s" % (k, _value(v)) for k, v in sizes.items()) \
            if isinstance(sizes, dict) else ""
        return "%s: expected %s, got %s%s" % (
            place, _value(m.get("expected")), _value(m.get("actual")),
            ", with " + with_sizes if with_sizes else "")
    return None


def verdict_words(verdict: str) -> str:
    """"wrong_answer" as a person reads it: "Wrong answer"."""
    return verdict.replace("_", " ").capitalize()


def result_html(result: dict, source: bytes, page_url: str, submission_id: int) -> str:
    """The result of a grading of the cell `source`, linked to its page."""
    verdict = field(result, "verdict")
    verdict = verdict if isinstance(verdict, str) else "internal_error"
    colour = VERDICT_COLOURS.get(verdict, RED)
    parts = ['<div><strong style="color:%s;font-size:1.15em">%s</strong> &middot; %s</div>' % (
        colour, escape(verdict_words(verdict)), escape(str(field(result, "exercise") or "")))]
    parts.append("<p>%s</p>" % escape(str(field(result, "message") or "")))
    parts += _diagnostics(result, source)
    mismatch = _first_mismatch(result)
    if mismatch:
        parts.append("<div>First wrong element: %s</div>" % escape(mismatch))
    perf = field(result, "performance")
    if is_number(field(perf, "student_ms")):
        parts.append("<div>Time: %s</div>" % escape(time_text(perf)))
    output = field(result, "output")
    if isinstance(output, str) and output:
        parts.append('<div>The kernel printed:</div><pre style="%s">%s</pre>'
                     % (QUOTE_STYLE, escape(output)))
    device = field(field(result, "device"), "name")
    parts.append('<div style="font-size:0.9em;color:%s">on %s; seed %s &middot; '
                 '<a href="%s" target="_blank" rel="noopener">submission %d on the server</a>'
                 "</div>" % (GREY, escape(str(device or "")), escape(str(field(result, "seed"))),
                             escape(page_url, quote=True), submission_id))
    return _box(colour, parts)


def progress_html(sentence: str, page_url: Optional[str] = None) -> str:
    """The grading's latest progress, in one line that each event replaces."""
    link = (' &middot; <a href="%s" target="_blank" rel="noopener">its page</a>'
            % escape(page_url, quote=True) if page_url else "")
    return _box(GREY, ["<div>kgrade: %s%s</div>" % (escape(sentence), link)])


def error_html(sentence: str) -> str:
    """Why the cell was not graded (refused, unreachable, a bad option)."""
    return _box(RED, ['<div><strong style="color:%s">Not graded</strong>: %s</div>'
                      % (RED, escape(sentence))])
