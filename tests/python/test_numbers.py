"""The Python client's numbers (kgrade_client/numbers.py) against the table
grader/number_text.c and web/static/format.js are held to
(tests/unit/number_text_cases.json), so `python3 -m kgrade_client` prints
every ratio and time as `kgrade submit` does.

    python3 tests/python/test_numbers.py
"""

import json
import math
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from kgrade_client.numbers import ms_text, number_text, ratio_text  # noqa: E402

SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
FORMATS = {"number": number_text, "ratio": ratio_text, "ms": ms_text}


class NumbersTest(unittest.TestCase):
    def test_the_shared_table(self):
        with open(os.path.join(HERE, "..", "unit", "number_text_cases.json")) as f:
            cases = json.load(f)["cases"]
        self.assertGreater(len(cases), 10)
        for case in cases:
            value = case["value"]
            x = SPECIAL[value] if isinstance(value, str) else value
            for name, format_text in FORMATS.items():
                with self.subTest(value=value, format=name):
                    self.assertEqual(format_text(x), case[name])


if __name__ == "__main__":
    unittest.main()
