"""A %%kgrade cell in the host form against a real server, for
service_lib.sh's host_form_cell (test_service_host_form.sh, in
tests/integration at a small size and tests/full at 100M).

    python3 tests/integration/notebook_host_form.py URL TOKEN COURSE_ANSWER.py

Loads the extension (clients/python, on PYTHONPATH) in an IPython shell,
logs in with %kgrade_login and grades a cell holding the course's answer
to hidden-layer (create_hidden_layer and its CUDA ufuncs) with
`%%kgrade hidden-layer`, the magic's default language being Numba. Prints
one "ok NAME" or "FAIL NAME: why" line per check, and exits 1 when any
failed.
"""

import sys

from IPython.core.interactiveshell import InteractiveShell

from notebook_session import check, grade
import notebook_session


def main(url: str, token: str, course_answer: str) -> int:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "kgrade_client")
    shell.run_line_magic("kgrade_login", "%s %s" % (url, token))
    with open(course_answer) as f:
        outputs = grade(shell, "hidden-layer", f.read())
    html = outputs[-1].data["text/html"] if outputs else ""
    check("the course's answer in a %%kgrade cell passes, in green",
          ">Passed<" in html and "#1a7f37" in html, html)
    check("... saying its copies, as many as the reference's",
          "2 copies to the device" in html and " and 1 back, against the reference" in html, html)
    return 1 if notebook_session.failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
