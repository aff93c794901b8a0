"""A client of kgrade's REST API over http.client: requests and event streams.

The twin of server/api_client.c. One client holds the server's base URL
and an API token; every call answers a Reply: the HTTP status (0 when the
server was not reached), the JSON body, Retry-After, and a sentence for a
person (the transport's for a failure, the server's error.message for an
error status). Nothing follows redirects, so the token never travels to
another host, and only http:// and https:// are spoken.
"""

import http.client
import json
import ssl
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from . import __version__
from .sse import SseParser

TOKEN_MAX = 512
BODY_MAX = 16 << 20  # a larger answer is refused
CONNECT_SECONDS = 15
REQUEST_SECONDS = 120
# The server sends a keep-alive comment every 15 s: a stream silent this
# long has lost its connection.
STREAM_SILENCE_SECONDS = 50
STREAM_READ_BYTES = 16384

EventHandler = Callable[[str, str], bool]  # (event, data) -> go on reading?


class UnusableSettings(ValueError):
    """The server URL or the token cannot be used; the text says why."""


@dataclass
class Reply:
    """What one request got."""

    status: int = 0  # the HTTP status; 0 when the server was not reached
    body: Any = None  # the JSON answer; None when there was none or it was not JSON
    retry_after: Optional[int] = None  # seconds, from Retry-After
    message: str = ""


def _visible(text: str) -> bool:
    return all("!" <= c <= "~" for c in text)


def check_url(url: str) -> None:
    """Raises UnusableSettings unless `url` is an http(s) URL without spaces."""
    if not url.startswith(("http://", "https://")):
        raise UnusableSettings(
            "the server '%.200s' is not an http:// or https:// URL "
            "(e.g. https://kgrade.example)" % url)
    if not _visible(url):
        raise UnusableSettings("the server URL holds a space or a control character")


def check_token(token: str) -> None:
    """Raises UnusableSettings unless `token` has 1 to TOKEN_MAX visible characters."""
    if not 0 < len(token) <= TOKEN_MAX or not _visible(token):
        raise UnusableSettings(
            "the token is not usable: it has 1 to %d visible characters and no spaces "
            "(make one with `kgrade token create` or on the tokens page)" % TOKEN_MAX)


def _retry_after(value: Optional[str]) -> Optional[int]:
    """Seconds from a Retry-After header, read as strtol reads it."""
    digits = (value or "").strip()
    end = 0
    while end < len(digits) and digits[end].isdigit():
        end += 1
    return int(digits[:end]) if end else None


def _read_capped(response: http.client.HTTPResponse) -> Tuple[bytes, bool]:
    body = response.read(BODY_MAX + 1)
    return body[:BODY_MAX], len(body) > BODY_MAX


class ApiClient:
    """The server at `base_url` (a trailing slash allowed) with `token`
    (None: no credential, for the public routes)."""

    def __init__(self, base_url: str, token: Optional[str]) -> None:
        check_url(base_url)
        if token is not None:
            check_token(token)
        self.server = base_url.rstrip("/")
        self._token = token
        self._url = urllib.parse.urlsplit(self.server)

    # ------------------------------------------------------------ plumbing

    def _connect(self, read_seconds: float) -> http.client.HTTPConnection:
        host, port = self._url.hostname or "", self._url.port
        if self._url.scheme == "https":
            connection = http.client.HTTPSConnection(
                host, port, timeout=CONNECT_SECONDS, context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(host, port, timeout=CONNECT_SECONDS)
        connection.connect()
        connection.sock.settimeout(read_seconds)
        return connection

    def _headers(self, accept: str, key: Optional[str], has_body: bool) -> dict:
        headers = {"Accept": accept, "User-Agent": "kgrade-python/" + __version__}
        if self._token is not None:
            headers["Authorization"] = "Bearer " + self._token
        if has_body:
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def _unreachable(self, reply: Reply, error: BaseException) -> Reply:
        detail = getattr(error, "strerror", None) or str(error) or type(error).__name__
        reply.message = "%s cannot be reached: %s" % (self.server, detail)
        return reply

    def _answered(self, reply: Reply, response: http.client.HTTPResponse) -> bool:
        """Fills the reply from an answer read whole; False when it is too large."""
        reply.status = response.status
        reply.retry_after = _retry_after(response.getheader("Retry-After"))
        body, too_large = _read_capped(response)
        if too_large:
            reply.message = ("the server's answer is larger than %d MB: is %s a kgrade server?"
                             % (BODY_MAX >> 20, self.server))
            return False
        try:
            reply.body = json.loads(body.decode("utf-8")) if body else None
        except ValueError:
            reply.body = None
        if not 200 <= reply.status <= 299:
            error = reply.body.get("error") if isinstance(reply.body, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            reply.message = (message if isinstance(message, str)
                             else "the server answered HTTP %d" % reply.status)
        return True

    # ------------------------------------------------------------ the calls

    def request(self, method: str, path: str, body: Any = None,
                key: Optional[str] = None) -> Tuple[bool, Reply]:
        """`method` `path` (from the API's root, e.g. "/api/v1/submissions")
        with `body` as JSON when not None and an Idempotency-Key header when
        `key` is not None. True when an answer came, whatever its status."""
        reply = Reply()
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        connection = None
        try:
            connection = self._connect(REQUEST_SECONDS)
            connection.request(method, self._url.path + path, body=data,
                               headers=self._headers("application/json", key, data is not None))
            return self._answered(reply, connection.getresponse()), reply
        except (OSError, http.client.HTTPException) as error:
            return False, self._unreachable(reply, error)
        finally:
            if connection is not None:
                connection.close()

    def events(self, path: str, on_event: EventHandler) -> Tuple[bool, Reply]:
        """Reads the event stream at `path`, giving each event to `on_event`
        until it returns False (answers True), or the stream ends or fails
        (answers False; reply.status is 200 when it had opened)."""
        reply = Reply()
        connection = None
        try:
            connection = self._connect(STREAM_SILENCE_SECONDS)
            connection.request("GET", self._url.path + path,
                               headers=self._headers("text/event-stream", None, False))
            response = connection.getresponse()
            if response.status != 200:
                self._answered(reply, response)
                return False, reply
            reply.status = 200
            if self._read_stream(response, on_event):
                return True, reply
            reply.message = "the event stream ended early"
            return False, reply
        except (OSError, http.client.HTTPException) as error:
            return False, self._unreachable(reply, error)
        finally:
            if connection is not None:
                connection.close()

    @staticmethod
    def _read_stream(response: http.client.HTTPResponse, on_event: EventHandler) -> bool:
        """True when `on_event` asked to stop; False when the stream ended."""
        parser = SseParser()
        while True:
            chunk = response.read1(STREAM_READ_BYTES)
            if not chunk:
                return False
            for event, data in parser.feed(chunk):
                if not on_event(event, data):
                    return True
