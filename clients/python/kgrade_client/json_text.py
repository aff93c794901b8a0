"""JSON values as kgrade's C code reads and writes them.

Reading a field that may be missing or of another type, the type tests
jansson makes (json_is_integer, json_is_number: Python's
bool is an int, JSON's true is not), and the grade JSON printed as
`kgrade submit --json` prints it, to the byte: jansson's json_dumpf with a
two-space indent and reals with six significant digits ("0.00751249",
"1.0", "1e-5"), object keys in their order, UTF-8 kept, only the control
characters escaped.
"""

import re
from typing import Any


def field(obj: Any, key: str) -> Any:
    """obj[key] when obj is an object that has it, else None (json_object_get)."""
    return obj.get(key) if isinstance(obj, dict) else None


def field_list(obj: Any, key: str) -> list:
    """obj[key] when it is an array, else an empty one."""
    value = field(obj, key)
    return value if isinstance(value, list) else []


def is_integer(value: Any) -> bool:
    """A JSON integer."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A JSON number, integer or real."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_CONTROL = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}


def _json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20:
            out.append(_CONTROL.get(code, "\\u%04X" % code))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json_real(x: float) -> str:
    text = "%.6g" % x
    if "." not in text and "e" not in text and "n" not in text:
        text += ".0"
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", text)


def _json_value(value: Any, depth: int) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if is_integer(value):
        return str(value)
    if isinstance(value, float):
        return _json_real(value)
    if isinstance(value, str):
        return _json_string(value)
    inner, outer = "\n" + "  " * (depth + 1), "\n" + "  " * depth
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = ["%s: %s" % (_json_string(k), _json_value(v, depth + 1)) for k, v in value.items()]
    else:
        if not value:
            return "[]"
        items = [_json_value(v, depth + 1) for v in value]
    bracket = "{}" if isinstance(value, dict) else "[]"
    return bracket[0] + inner + ("," + inner).join(items) + outer + bracket[1]


def dump(value: Any) -> str:
    """The value as `kgrade submit --json` prints it, with its final newline."""
    return _json_value(value, 0) + "\n"

