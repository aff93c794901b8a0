"""Reading a Server-Sent Events stream, as a grading's progress arrives.

The twin of server/sse_parser.c: the parser takes the stream's bytes in
whatever pieces the network delivers and yields each complete event as
(name, data). It follows the EventSource rules that matter here: lines end
with LF, CRLF or CR (a CRLF split between two pieces is one end),
`event:` names the event (default "message"), `data:` lines are joined
with LF, a blank line ends the event, lines starting with ':' are comments
(the server's keep-alives), other fields are ignored, and an event with no
data is not dispatched. Memory stays bounded whatever the server sends: an
event larger than EVENT_BYTES_MAX is dropped whole, never truncated, and
counted in `dropped`.
"""

from typing import Iterator, List, Tuple

EVENT_NAME_MAX = 64  # longer names are cut to this
EVENT_BYTES_MAX = 1 << 20  # one event's line and data; beyond: dropped


class SseParser:
    """An event stream being read, fed with bytes by `feed`."""

    def __init__(self) -> None:
        self._line = bytearray()  # the line being read, not yet ended
        self._after_cr = False  # the last byte ended a line with CR
        self._data: List[bytes] = []
        self._data_size = 0
        self._has_data = False
        self._event = b""
        self._oversized = False
        self.dropped = 0  # events dropped for their size

    def feed(self, chunk: bytes) -> Iterator[Tuple[str, str]]:
        """Reads more bytes; yields (event, data) for every event they end."""
        i = 0
        while i < len(chunk):
            if self._after_cr and chunk[i] == 0x0A:  # the LF of a CRLF
                self._after_cr = False
                i += 1
                continue
            self._after_cr = False
            end = _line_end(chunk, i)
            self._extend_line(chunk[i:end])
            if end == len(chunk):
                break
            self._after_cr = chunk[end] == 0x0D
            i = end + 1
            event = self._take_line()
            if event is not None:
                yield event

    def _extend_line(self, piece: bytes) -> None:
        if self._oversized or len(self._line) + len(piece) > EVENT_BYTES_MAX:
            self._oversized = True
            if piece:  # skipped, but not blank: its end does not end the event
                self._line = bytearray(b"x")
            return
        self._line += piece

    def _take_line(self):
        """One ended line: a field, a comment or the blank line that dispatches."""
        line = bytes(self._line)
        self._line = bytearray()
        if not line:
            return self._dispatch()
        if line.startswith(b":") or self._oversized:
            return None
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._add_data(value)
        elif name == b"event":
            self._event = value[:EVENT_NAME_MAX]
        return None

    def _add_data(self, value: bytes) -> None:
        extra = len(value) + (1 if self._has_data else 0)
        if self._data_size + extra > EVENT_BYTES_MAX:
            self._oversized = True
            return
        self._data.append(value)
        self._data_size += extra
        self._has_data = True

    def _dispatch(self):
        event = None
        if self._oversized:
            self.dropped += 1
        elif self._has_data:
            name = self._event.decode("utf-8", "replace") or "message"
            event = (name, b"\n".join(self._data).decode("utf-8", "replace"))
        self._data, self._data_size, self._has_data = [], 0, False
        self._event, self._oversized = b"", False
        return event


def _line_end(chunk: bytes, start: int) -> int:
    """The index of the first CR or LF at or after `start`, or len(chunk)."""
    ends = [p for p in (chunk.find(b"\n", start), chunk.find(b"\r", start)) if p >= 0]
    return min(ends) if ends else len(chunk)
