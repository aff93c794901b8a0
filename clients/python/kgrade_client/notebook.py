"""The IPython extension: `%kgrade_login` and the cell magic `%%kgrade`.

    %load_ext kgrade_client
    %kgrade_login https://kgrade.example TOKEN      (or KGRADE_URL, KGRADE_TOKEN)

    %%kgrade hidden-layer
    @cuda.jit
    def hidden_layer(greyscales, weights, out): ...

The cell is submitted as it is (Numba by default; `--language cuda` for
CUDA C), its progress shown in one output that each event replaces, and
its result drawn there as HTML (html_report.py) once graded. Only this
module imports IPython, and only load_ipython_extension imports it.
"""

import argparse
import getpass
import os
import shlex
from typing import List, Optional

from IPython.core.error import UsageError
from IPython.display import HTML, display

from .api import ApiClient, UnusableSettings
from .html_report import error_html, progress_html, result_html
from .submission import LANGUAGES, Submission


class _MagicArguments(argparse.ArgumentParser):
    """argparse that reports a bad magic line as IPython's UsageError."""

    def error(self, message: str):
        raise UsageError("%s: %s" % (self.prog, message))


def _kgrade_arguments() -> _MagicArguments:
    parser = _MagicArguments(prog="%%kgrade", add_help=False)
    parser.add_argument("exercise")
    parser.add_argument("--language", choices=LANGUAGES, default="numba")
    return parser


class NotebookSession:
    """The server and the token this notebook submits with."""

    def __init__(self) -> None:
        self.server: Optional[str] = os.environ.get("KGRADE_URL")
        self.token: Optional[str] = os.environ.get("KGRADE_TOKEN")

    def login(self, line: str) -> None:
        """%kgrade_login [URL [TOKEN]]: where to submit, and as whom. Without a
        TOKEN (nor KGRADE_TOKEN) it is asked for, so it stays out of the notebook."""
        words = shlex.split(line)
        if len(words) > 2:
            raise UsageError("usage: %kgrade_login [URL [TOKEN]]")
        server = words[0] if words else self.server
        if not server:
            raise UsageError("usage: %kgrade_login URL [TOKEN] (or set KGRADE_URL)")
        token = words[1] if len(words) > 1 else self.token or getpass.getpass("kgrade token: ")
        try:
            client = ApiClient(server, token)
        except UnusableSettings as error:
            raise UsageError(str(error)) from None
        print(_signed_in(client))
        self.server, self.token = server, token

    def client(self) -> ApiClient:
        """A client for the server and token set; UsageError when none is."""
        if not self.server or not self.token:
            raise UsageError("no server to submit to: %kgrade_login URL TOKEN first "
                             "(or set KGRADE_URL and KGRADE_TOKEN)")
        try:
            return ApiClient(self.server, self.token)
        except UnusableSettings as error:
            raise UsageError(str(error)) from None

    def grade(self, line: str, cell: str) -> None:
        """%%kgrade EXERCISE [--language numba|cuda]: grades the cell."""
        args = _kgrade_arguments().parse_args(shlex.split(line))
        client = self.client()
        source = cell.encode("utf-8")
        progress = _Progress("submitting to %s" % client.server)
        submission = progress.submission = Submission(client, progress.say)
        try:
            outcome = submission.run(args.exercise, source, args.language)
        except KeyboardInterrupt:
            if submission.id is None:
                raise
            progress.say("stopped waiting; the grading goes on")
            return
        result = outcome.submission.get("result") if outcome.submission else None
        if isinstance(result, dict):
            progress.show(result_html(result, source, submission.web_page(), submission.id))
        elif outcome.submission:
            progress.show(error_html("the server holds no result for submission %d"
                                     % submission.id))
        else:
            progress.show(error_html(progress.said[-1] if progress.said else "not submitted"))


class _Progress:
    """One output in the notebook that each sentence of a grading replaces."""

    def __init__(self, first: str) -> None:
        self.handle = display(HTML(progress_html(first)), display_id=True)
        self.said: List[str] = []
        self.submission: Optional[Submission] = None

    def say(self, sentence: str) -> None:
        """Shows the sentence, with a link to the submission's page once it has one."""
        self.said.append(sentence)
        has_page = self.submission is not None and self.submission.id is not None
        self.show(progress_html(sentence, self.submission.web_page() if has_page else None))

    def show(self, html: str) -> None:
        """Replaces what the output shows."""
        self.handle.update(HTML(html))


def _signed_in(client: ApiClient) -> str:
    """"kgrade: submitting to URL as NAME"; UsageError when the token is refused."""
    reached, reply = client.request("GET", "/api/v1/me")
    name = reply.body.get("name") if isinstance(reply.body, dict) else None
    if reply.status == 200 and isinstance(name, str):
        return "kgrade: submitting to %s as %s" % (client.server, name)
    if reached and reply.status in (200, 401, 403):
        raise UsageError("%s refused the token: %s" % (
            client.server, reply.message or "it signs no one in"))
    return "kgrade: %s; %%%%kgrade will try it again" % reply.message


def register_magics(ipython) -> None:
    """Adds %kgrade_login and %%kgrade to the shell."""
    session = NotebookSession()
    ipython.register_magic_function(session.login, "line", "kgrade_login")
    ipython.register_magic_function(session.grade, "cell", "kgrade")
