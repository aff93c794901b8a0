"""Numbers people can read: ratios and times with three significant figures.

The twin of grader/number_text.c (the command line's and the messages'
numbers) and web/static/format.js (the pages'), so that a ratio printed
here reads exactly as `kgrade submit` prints it: "1.03×", "0.00484×, 207×
faster than the reference", "335 µs". tests/unit/number_text_cases.json
holds all three to the same answers (tests/python/test_numbers.py).

Python's "%.2e" rounds the exact binary value to nearest, as C's printf
does, so a value is rounded once, before its unit or wording is chosen.
"""

import math

SIGNIFICANT = 3
PLAIN_LOW = -6  # plain decimal for exponents in [PLAIN_LOW, PLAIN_HIGH)
PLAIN_HIGH = 15
RATIO_FASTER_AT = 0.5  # at most this, a ratio also says how many times faster


def _plain_decimal(digits: str, exponent: int) -> str:
    """The significant digits placed around the decimal point."""
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if exponent >= SIGNIFICANT - 1:
        return digits + "0" * (exponent - (SIGNIFICANT - 1))
    return digits[: exponent + 1] + "." + digits[exponent + 1 :]


def number_text(x: float) -> str:
    """"0.00484", "1.00", "207", "12300"; "0"; "4.84e-7" far out; "nan", "inf"."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if x == 0:
        return "0"
    mantissa, exponent_text = ("%.*e" % (SIGNIFICANT - 1, abs(x))).split("e")
    exponent = int(exponent_text)
    sign = "-" if x < 0 else ""
    if exponent < PLAIN_LOW or exponent >= PLAIN_HIGH:
        return "%s%se%+d" % (sign, mantissa, exponent)
    return sign + _plain_decimal(mantissa.replace(".", ""), exponent)


def ratio_text(ratio: float) -> str:
    """"1.03×", or "0.00484×, 207× faster than the reference"."""
    text = number_text(ratio)
    shown = float(text)  # the wording follows what is printed
    if 0 < shown <= RATIO_FASTER_AT:
        return "%s×, %s× faster than the reference" % (text, number_text(1 / ratio))
    return text + "×"


def ms_text(ms: float) -> str:
    """Milliseconds in the unit that reads best: "335 µs", "12.3 ms", "1.23 s"."""
    text = number_text(ms)
    shown = abs(float(text))  # the unit follows what is printed
    if math.isfinite(ms) and shown != 0 and shown < 1:
        return number_text(ms * 1e3) + " µs"
    if math.isfinite(ms) and shown >= 1000:
        return number_text(ms / 1e3) + " s"
    return text + " ms"
