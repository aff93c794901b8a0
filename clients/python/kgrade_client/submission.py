"""One submission's journey: posted once, followed until it is graded.

The twin of server/cmd_submit.c's protocol, shared by the command line
and the notebook magic. Nothing is submitted twice: every attempt carries
the same Idempotency-Key, so a retry after a lost answer gets the same
submission back. A full queue or a rate limit (503, 429) is waited out as
the server's Retry-After says, a few times; a server that cannot be
reached is tried again after 1, 2 and 4 s. Progress comes from the event
stream; a stream that drops, or that the server refuses (429: the user
has too many open), is replaced by asking for the submission every 2 s
until it is done.

What happens is told through `say`, one sentence at a time, in the same
words as `kgrade submit`; the outcome is an exit code and, once graded,
the submission as the server holds it.
"""

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from .api import ApiClient, Reply
from .exit_codes import EXIT_INTERNAL, EXIT_USAGE, refusal_code
from .json_text import is_integer, is_number

BUSY_ATTEMPTS = 6  # submissions refused with 429 or 503 before giving up
BUSY_WAIT_MAX = 120  # seconds waited for one Retry-After at most
BUSY_WAIT_DEFAULT = 5  # seconds, when the server gives no Retry-After
UNREACHABLE_RETRIES = 3  # consecutive transport failures tolerated (1+2+4 s)
POLL_SECONDS = 2  # between looks at a submission without an event stream
LANGUAGES = ("cuda", "numba")  # what the server grades
LANGUAGE_DEFAULT = "cuda"  # the language the server assumes when none is sent

Say = Callable[[str], None]


@dataclass
class Outcome:
    """How a submission ended: the exit code `kgrade submit` would give
    (None until a result is reported), and the submission once graded."""

    code: Optional[int]
    id: Optional[int] = None
    submission: Optional[dict] = None


def idempotency_key() -> str:
    """128 random bits in hex: the key of every attempt of one submission."""
    return secrets.token_hex(16)


def progress_line(event: str, data: Any) -> str:
    """A progress event in words: "queued, position 2 in the queue",
    "running, case 3 of 3 (assessment, n = 1,000,000): the reference, about 14 s"."""
    data = data if isinstance(data, dict) else {}
    position, case, cases = data.get("position"), data.get("case"), data.get("cases")
    if is_integer(position):
        return "%s, position %d in the queue" % (
            "queued" if event == "position" else event, position)
    if is_integer(case) and is_integer(cases):
        what = data.get("what")
        return "%s, case %d of %d (%s)%s" % (event[:20], case, cases,
                                             what[:100] if isinstance(what, str) else "",
                                             _step(data))
    return event[:40]


def _step(data: dict) -> str:
    """": the reference, about 12 s" or ": your kernel" after a running line."""
    step, expected = data.get("step"), data.get("expected_seconds")
    if not isinstance(step, str):
        return ""
    text = ": " + ("the reference" if step == "reference" else "your kernel")
    if is_number(expected):
        text += ", about %.*f s" % (1 if expected < 10 else 0, expected)
    return text


class Submission:
    """A source to submit to `client`, telling what happens through `say`.
    `sleep` and `new_key` are the clock and the key maker (tests replace them)."""

    def __init__(self, client: ApiClient, say: Say,
                 sleep: Callable[[float], None] = time.sleep,
                 new_key: Callable[[], str] = idempotency_key) -> None:
        self.client = client
        self.say = say
        self.sleep = sleep
        self.new_key = new_key
        self.id: Optional[int] = None
        self.path = ""
        self._phase = ""  # the last progress said, to say each change once

    # ------------------------------------------------------------ the whole journey

    def run(self, exercise: str, source: bytes, language: str) -> Outcome:
        """Posts the source and follows it until it is graded."""
        code = self.post(exercise, source, language)
        if code is not None:
            return Outcome(code)
        self.say("submitted as %d: %s%s" % (self.id, self.client.server, self.path))
        submission, code = self.follow()
        return Outcome(code, self.id, submission)

    def web_page(self) -> str:
        """The result's page on the server, for people."""
        return "%s/submissions/%d" % (self.client.server, self.id)

    # ------------------------------------------------------------ posting

    def refusal_say(self, reply: Reply) -> None:
        """Says why the server did not do what was asked."""
        if reply.status in (401, 403):
            self.say("%s refused the token: %s" % (self.client.server, reply.message))
        elif reply.status == 0:
            self.say(reply.message)
        else:
            self.say("%s (HTTP %d)" % (reply.message, reply.status))

    def _request_patiently(self, method: str, path: str, body: Any = None,
                           key: Optional[str] = None) -> Tuple[bool, Reply]:
        """A request retried while the server cannot be reached."""
        attempt = 0
        while True:
            reached, reply = self.client.request(method, path, body, key)
            if reached or attempt >= UNREACHABLE_RETRIES:
                return reached, reply
            self.say("%s; trying again" % reply.message)
            self.sleep(1 << min(attempt, 4))
            attempt += 1

    def post(self, exercise: str, source: bytes, language: str) -> Optional[int]:
        """Posts the submission and fills self.id; an exit code when it was not taken."""
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError:
            self.say("the file is not UTF-8 text, which the server refuses: save it as UTF-8")
            return EXIT_USAGE
        body = {"exercise": exercise, "source": text}
        if language != LANGUAGE_DEFAULT:  # servers before Numba know no "language"
            body["language"] = language
        key = self.new_key()
        for busy in range(BUSY_ATTEMPTS):
            reached, reply = self._request_patiently("POST", "/api/v1/submissions", body, key)
            new_id = reply.body.get("id") if isinstance(reply.body, dict) else None
            if reached and reply.status in (200, 202) and is_integer(new_id):
                self.id = new_id
                self.path = "/api/v1/submissions/%d" % new_id
                return None
            if reached and reply.status in (429, 503) and busy + 1 < BUSY_ATTEMPTS:
                wait = reply.retry_after if reply.retry_after is not None else BUSY_WAIT_DEFAULT
                wait = min(max(wait, 1), BUSY_WAIT_MAX)
                self.say("%s; trying again in %d s" % (reply.message, wait))
                self.sleep(wait)
                continue
            if reached and 200 <= reply.status <= 299:
                self.say("%s did not answer like a kgrade server (no submission id)"
                         % self.client.server)
                return EXIT_INTERNAL
            self.refusal_say(reply)
            return refusal_code(reply.status)
        return EXIT_INTERNAL  # not reached: the last busy attempt is refused above

    # ------------------------------------------------------------ following

    def _on_event(self, event: str, data: str) -> bool:
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if event == "done":
            verdict = parsed.get("verdict") if isinstance(parsed, dict) else None
            self.say("graded: %s" % (verdict if isinstance(verdict, str) else "done"))
            return False
        line = progress_line(event, parsed)
        if line != self._phase:
            self.say(line)
        self._phase = line
        return True

    def fetch(self) -> Tuple[Optional[dict], Optional[int]]:
        """The submission as the server has it now; or None and the exit code."""
        reached, reply = self._request_patiently("GET", self.path)
        if reached and reply.status == 200 and isinstance(reply.body, dict):
            return reply.body, None
        self.refusal_say(reply)
        return None, EXIT_INTERNAL if reply.status == 200 else refusal_code(reply.status)

    def follow(self) -> Tuple[Optional[dict], Optional[int]]:
        """Follows the grading until it is done: the submission, or None and the exit code."""
        busy = 0
        while True:
            stopped, reply = self.client.events(self.path + "/events", self._on_event)
            refused = reply.status in (429, 503)  # too many streams: poll
            if not stopped and reply.status not in (0, 200) and not refused:
                self.refusal_say(reply)
                return None, refusal_code(reply.status)
            submission, code = self.fetch()
            if submission is None or submission.get("status") == "done":
                return submission, code
            if not stopped and reply.status == 0:
                self.say("the event stream is not reachable (%s); asking again" % reply.message)
            if refused and busy == 0:
                self.say("%s; asking for the submission every %d s instead"
                         % (reply.message, POLL_SECONDS))
            busy += 1 if refused else 0
            self.sleep(POLL_SECONDS)
