"""The submission protocol of the Python client against a scripted server.

One Idempotency-Key for every attempt of a submission (after a lost
answer, a 503, a 429), Retry-After honoured and clamped, a server that
cannot be reached tried again after 1, 2 and 4 s, refusals answered with
`kgrade submit`'s exit codes and sentences, "language" sent only when it
is not CUDA, redirects never followed, and a dropped or refused event
stream replaced by polling until the submission is done.

    PYTHONPATH=clients/python python3 tests/python/test_submission.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
sys.path.insert(0, os.path.dirname(__file__))

from fixture_server import Answer, FixtureServer  # noqa: E402
from kgrade_client.api import ApiClient  # noqa: E402
from kgrade_client.submission import Submission, progress_line  # noqa: E402

POST = "POST /api/v1/submissions"
GET = "GET /api/v1/submissions/7"
EVENTS = "GET /api/v1/submissions/7/events"
RESULT = {"verdict": "passed", "message": "correct"}
DONE = Answer(200, {"id": 7, "status": "done", "result": RESULT})
TAKEN = Answer(202, {"id": 7, "status": "queued", "url": "/api/v1/submissions/7"})
STREAM = ('event: queued\ndata: {"position": 2, "id": 7}\n\n: keep-alive\n\n'
          'event: compiling\ndata: {"id": 7}\n\n'
          'event: done\ndata: {"id": 7, "verdict": "passed"}\n\n')


class Run:
    """A submission to a fixture server, with what it said and how long it slept."""

    def __init__(self, server: FixtureServer, token: str = "t0ken") -> None:
        self.said, self.slept = [], []
        self.submission = Submission(ApiClient(server.url, token), self.said.append,
                                     sleep=self.slept.append)

    def run(self, language: str = "cuda"):
        return self.submission.run("tiny-add", b"__global__ void k() {}\n", language)


class PostTest(unittest.TestCase):
    def test_one_key_across_a_lost_answer_and_busy_answers(self):
        script = {POST: [None, Answer(503, {"error": {"message": "the queue is full"}},
                                      {"Retry-After": "3"}),
                         Answer(429, {"error": {"message": "slow down"}}), TAKEN],
                  EVENTS: [Answer(stream=STREAM)], GET: [DONE]}
        with FixtureServer(script) as server:
            run = Run(server)
            outcome = run.run()
        posts = server.made("POST", "/api/v1/submissions")
        self.assertEqual(len(posts), 4)
        keys = {p.headers.get("Idempotency-Key") for p in posts}
        self.assertEqual(len(keys), 1)
        self.assertRegex(keys.pop(), "^[0-9a-f]{32}$")
        self.assertEqual(run.slept, [1, 3, 5])  # backoff, Retry-After, the default
        self.assertIn("the queue is full; trying again in 3 s", run.said)
        self.assertEqual(outcome.code, None)
        self.assertEqual(outcome.submission["result"], RESULT)
        self.assertEqual(posts[0].headers["Authorization"], "Bearer t0ken")

    def test_a_new_submission_gets_a_new_key(self):
        script = {POST: [TAKEN], EVENTS: [Answer(stream=STREAM)], GET: [DONE]}
        with FixtureServer(script) as server:
            Run(server).run()
            Run(server).run()
        keys = [p.headers["Idempotency-Key"] for p in server.made("POST", "/api/v1/submissions")]
        self.assertNotEqual(keys[0], keys[1])

    def test_retry_after_is_clamped(self):
        script = {POST: [Answer(503, {}, {"Retry-After": "0"}),
                         Answer(503, {}, {"Retry-After": "9999"}), TAKEN],
                  EVENTS: [Answer(stream=STREAM)], GET: [DONE]}
        with FixtureServer(script) as server:
            run = Run(server)
            run.run()
        self.assertEqual(run.slept, [1, 120])

    def test_busy_six_times_gives_up_with_4(self):
        script = {POST: [Answer(429, {"error": {"message": "too many"}}, {"Retry-After": "2"})]}
        with FixtureServer(script) as server:
            run = Run(server)
            outcome = run.run()
        self.assertEqual(len(server.made("POST", "/api/v1/submissions")), 6)
        self.assertEqual(run.slept, [2] * 5)
        self.assertEqual(outcome.code, 4)
        self.assertEqual(run.said[-1], "too many (HTTP 429)")

    def test_language_is_sent_only_when_not_cuda(self):
        script = {POST: [TAKEN], EVENTS: [Answer(stream=STREAM)], GET: [DONE]}
        with FixtureServer(script) as server:
            Run(server).run("cuda")
            Run(server).run("numba")
        cuda, numba = [p.body for p in server.made("POST", "/api/v1/submissions")]
        self.assertEqual(set(cuda), {"exercise", "source"})
        self.assertEqual(numba["language"], "numba")

    def test_refusals_exit_as_kgrade_submit(self):
        cases = [(Answer(422, {"error": {"message": "no exercise 'x'"}}), 2,
                  "no exercise 'x' (HTTP 422)"),
                 (Answer(401, {"error": {"message": "the token is unknown"}}), 4,
                  "refused the token: the token is unknown"),
                 (Answer(500, "not json"), 3, "the server answered HTTP 500 (HTTP 500)"),
                 (Answer(202, {"status": "queued"}), 3, "did not answer like a kgrade server"),
                 (Answer(302, {}, {"Location": "http://elsewhere.invalid/"}), 2, "HTTP 302")]
        for answer, code, sentence in cases:
            with self.subTest(status=answer.status), FixtureServer({POST: [answer]}) as server:
                run = Run(server)
                self.assertEqual(run.run().code, code)
                self.assertIn(sentence, run.said[-1])
                self.assertEqual(len(server.requests), 1)  # no retry, no redirect followed

    def test_unreachable_is_tried_again_after_1_2_4_s(self):
        with FixtureServer({}) as server:
            url = server.url
        said, slept = [], []
        outcome = Submission(ApiClient(url, "t"), said.append, sleep=slept.append).run(
            "tiny-add", b"x", "cuda")
        self.assertEqual(outcome.code, 4)
        self.assertEqual(slept, [1, 2, 4])
        self.assertRegex(said[-1], "cannot be reached")

    def test_a_source_not_utf8_is_refused_before_sending(self):
        with FixtureServer({}) as server:
            said = []
            outcome = Submission(ApiClient(server.url, "t"), said.append).run(
                "tiny-add", b"\xff\xfe", "cuda")
        self.assertEqual(outcome.code, 2)
        self.assertEqual(server.requests, [])


class FollowTest(unittest.TestCase):
    def test_progress_is_said_once_per_change(self):
        script = {POST: [TAKEN], EVENTS: [Answer(stream=STREAM)], GET: [DONE]}
        with FixtureServer(script) as server:
            run = Run(server)
            run.run()
        self.assertEqual(run.said, ["submitted as 7: %s/api/v1/submissions/7" % server.url,
                                    "queued, position 2 in the queue", "compiling",
                                    "graded: passed"])

    def test_a_dropped_stream_then_a_refused_one_fall_back_to_polling(self):
        running = Answer(200, {"id": 7, "status": "running"})
        script = {POST: [TAKEN],
                  EVENTS: [Answer(stream='event: compiling\ndata: {"id": 7}\n\n'),
                           Answer(429, {"error": {"message": "8 event streams are open"}},
                                  {"Retry-After": "15"})],
                  GET: [running, running, DONE]}
        with FixtureServer(script) as server:
            run = Run(server)
            outcome = run.run()
        self.assertEqual(outcome.submission["result"], RESULT)
        self.assertEqual(run.slept, [2, 2])
        self.assertEqual(run.said.count(
            "8 event streams are open; asking for the submission every 2 s instead"), 1)
        self.assertEqual(len(server.made("GET", "/api/v1/submissions/7")), 3)

    def test_a_stream_refusing_the_token_ends_with_4(self):
        script = {POST: [TAKEN], EVENTS: [Answer(401, {"error": {"message": "revoked"}})]}
        with FixtureServer(script) as server:
            run = Run(server)
            self.assertEqual(run.run().code, 4)


class ProgressLineTest(unittest.TestCase):
    def test_lines_read_as_kgrade_submit_writes_them(self):
        self.assertEqual(progress_line("position", {"position": 3}),
                         "queued, position 3 in the queue")
        self.assertEqual(progress_line("running", {"case": 3, "cases": 3,
                                                   "what": "assessment, n = 100,000,000",
                                                   "step": "reference",
                                                   "expected_seconds": 14.2}),
                         "running, case 3 of 3 (assessment, n = 100,000,000): "
                         "the reference, about 14 s")
        self.assertEqual(progress_line("running", {"case": 1, "cases": 2, "what": "n = 100",
                                                   "step": "student",
                                                   "expected_seconds": 0.0075}),
                         "running, case 1 of 2 (n = 100): your kernel, about 0.0 s")
        self.assertEqual(progress_line("timing", None), "timing")
        self.assertEqual(progress_line("running", {"case": True, "cases": 2}), "running")


if __name__ == "__main__":
    unittest.main()
