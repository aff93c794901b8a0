"""The Python client's event-stream parser (kgrade_client/sse.py), held to
the rules of server/sse_parser.c: LF, CRLF and CR line ends (a CRLF split
between two pieces is one end), named and unnamed events, data lines
joined, comments and unknown fields ignored, events without data not
dispatched, an over-long event dropped whole and counted.

    python3 tests/python/test_sse.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

from kgrade_client.sse import EVENT_BYTES_MAX, SseParser  # noqa: E402


def events_of(*pieces: bytes, parser=None):
    parser = parser or SseParser()
    return [event for piece in pieces for event in parser.feed(piece)]


class SseTest(unittest.TestCase):
    STREAM = (b': keep-alive\n\nevent: queued\ndata: {"position": 2}\n\n'
              b'event: running\ndata: {"case": 1,\ndata:  "cases": 3}\nid: 4\n\n'
              b'data:no space\n\n')
    EVENTS = [("queued", '{"position": 2}'), ("running", '{"case": 1,\n "cases": 3}'),
              ("message", "no space")]

    def test_a_stream_in_one_piece(self):
        self.assertEqual(events_of(self.STREAM), self.EVENTS)

    def test_any_split_gives_the_same_events(self):
        for cut in range(len(self.STREAM)):
            with self.subTest(cut=cut):
                self.assertEqual(events_of(self.STREAM[:cut], self.STREAM[cut:]), self.EVENTS)
        self.assertEqual(events_of(*[bytes([b]) for b in self.STREAM]), self.EVENTS)

    def test_crlf_and_cr_end_lines(self):
        crlf = self.STREAM.replace(b"\n", b"\r\n")
        cr = self.STREAM.replace(b"\n", b"\r")
        self.assertEqual(events_of(crlf), self.EVENTS)
        self.assertEqual(events_of(cr), self.EVENTS)
        self.assertEqual(events_of(*[bytes([b]) for b in crlf]), self.EVENTS)

    def test_an_event_without_data_is_not_dispatched(self):
        self.assertEqual(events_of(b"event: done\n\nevent: x\nretry: 3\n\n"), [])

    def test_an_unfinished_event_waits_for_its_blank_line(self):
        parser = SseParser()
        self.assertEqual(events_of(b"event: done\ndata: {}\n", parser=parser), [])
        self.assertEqual(events_of(b"\n", parser=parser), [("done", "{}")])

    def test_an_oversized_event_is_dropped_whole_and_counted(self):
        parser = SseParser()
        huge = b"event: big\ndata: " + b"x" * EVENT_BYTES_MAX + b"\n\n"
        got = events_of(huge[:1000], huge[1000:], b"event: done\ndata: ok\n\n", parser=parser)
        self.assertEqual(got, [("done", "ok")])
        self.assertEqual(parser.dropped, 1)

    def test_many_data_lines_past_the_cap_are_dropped(self):
        parser = SseParser()
        line = b"data: " + b"y" * 1000 + b"\n"
        got = events_of(line * (EVENT_BYTES_MAX // 1000 + 2) + b"\n", b"data: next\n\n",
                        parser=parser)
        self.assertEqual(got, [("message", "next")])
        self.assertEqual(parser.dropped, 1)

    def test_long_event_names_are_cut(self):
        self.assertEqual(events_of(b"event: " + b"n" * 100 + b"\ndata: d\n\n"),
                         [("n" * 64, "d")])


if __name__ == "__main__":
    unittest.main()
