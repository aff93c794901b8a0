"""A notebook session against a real server, for test_python_client.sh.

    python3 tests/integration/notebook_session.py ZIP URL TOKEN GOOD.cu OOB.cu

Imports the client from the downloaded ZIP as the tokens page says to,
loads the extension in an IPython shell, logs in with %kgrade_login (a
bad token is refused and the good one kept), and
grades two cells with %%kgrade: a good kernel and one that reads past its
buffer (with a `<script>` on the faulting line). Prints one "ok NAME" or
"FAIL NAME: why" line per check, and exits 1 when any failed.
"""

import sys

from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

failures = 0


def check(name: str, passed: bool, detail: str = "") -> None:
    global failures
    print(("ok   " if passed else "FAIL ") + name + ("" if passed else ": " + detail[:2000]))
    failures += 0 if passed else 1


def grade(shell, line: str, cell: str):
    """Runs the cell magic; answers the HTML outputs it published, in order."""
    with capture_output() as captured:
        shell.run_cell_magic("kgrade", line, cell)
    return [o for o in captured.outputs if "text/html" in o.data]


def main(zip_path: str, url: str, token: str, good: str, oob: str) -> int:
    sys.path.insert(0, zip_path)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "kgrade_client")
    check("the extension comes from the zip", zip_path in sys.modules["kgrade_client"].__file__,
          sys.modules["kgrade_client"].__file__)
    with capture_output() as captured:
        shell.run_line_magic("kgrade_login", "%s %s" % (url, token))
    check("%kgrade_login says who is signed in", "as ann" in captured.stdout, captured.stdout)
    refusal = "no error"
    try:
        shell.run_line_magic("kgrade_login", "%s not-a-token" % url)
    except UsageError as error:
        refusal = str(error)
    check("%kgrade_login refuses a token the server refuses", "refused the token" in refusal,
          refusal)

    outputs = grade(shell, "tiny-add --language cuda", open(good).read())
    ids = {o.transient.get("display_id") for o in outputs}
    check("progress updates one display", len(outputs) > 2 and len(ids) == 1 and None not in ids
          and all(o.update for o in outputs[1:]), repr([(o.transient, o.update) for o in outputs]))
    html = outputs[-1].data["text/html"] if outputs else ""
    check("a good cell passes, in green", ">Passed<" in html and "#1a7f37" in html, html)
    check("... with its time and a link to its page",
          "Time: " in html and ('href="%s/submissions/' % url) in html, html)

    cell = open(oob).read().replace("b[i];", "b[i]; // <script>alert(1)</script>")
    html = grade(shell, "tiny-add --language cuda", cell)[-1].data["text/html"]
    check("a memory error is shown with its line quoted from the cell",
          "Memory error" in html and
          "    4 |     c[i] = a[i] + b[i]; // &lt;script&gt;alert(1)&lt;/script&gt;</pre>" in html,
          html)
    check("nothing from the cell is markup", "<script" not in html, html)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
