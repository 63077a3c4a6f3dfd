"""The review page's server: the standard library's HTTP server, on this machine only.

Why the standard library: the page needs four routes and no templates, and a web framework
would be a dependency of every install for a command few users run. It binds to 127.0.0.1 only
and every route sits under a random secret (``/<secret>/...``, 32 bytes from :mod:`secrets`), so
another user of the machine, or a web page open in the reviewer's browser, cannot read the notes
or change a correction without the URL; a request whose Host header is not this server's is
refused (a web page cannot reach it through a name it controls). The page is one file with its
script and style inside (``page.html``): it loads nothing from the network and works offline.
Requests are logged by method, route and status only, never with note text.
"""
from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from itdeid.errors import FormatError
from itdeid.review.store import ReviewStore

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"
#: Largest request body read (a note's spans as JSON).
MAX_BODY = 4 * 1024 * 1024


def page() -> bytes:
    return resources.files("itdeid.review").joinpath("page.html").read_bytes()


class ReviewServer(ThreadingHTTPServer):
    """Serves ``store`` at ``url`` (``http://127.0.0.1:PORT/SECRET/``)."""

    daemon_threads = True

    def __init__(self, store: ReviewStore, port: int = 0, secret: str | None = None):
        self.store = store
        self.secret = secret or secrets.token_urlsafe(32)
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/{self.secret}/"

    def start(self) -> threading.Thread:
        """Serve on a background thread (tests and embedding); ``shutdown()`` stops it."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer
    server_version = "itdeid-review"
    sys_version = ""

    def log_message(self, format, *args):      # the route only: never a query or a body
        logger.debug("%s %s", self.command, self._route_for_log())

    def _route_for_log(self) -> str:
        parts = self.path.split("?")[0].split("/")
        return "/".join("SECRET" if p == self.server.secret else p for p in parts)

    # -- routing ------------------------------------------------------------------------------
    def _route(self) -> list[str] | None:
        """The path's parts after the secret, or None (and a 404 sent) without it."""
        host = self.headers.get("Host", "")
        port = self.server.server_address[1]
        if host not in (f"{HOST}:{port}", f"localhost:{port}"):
            self._send(HTTPStatus.FORBIDDEN, {"error": "this server answers on 127.0.0.1 only"})
            return None
        parts = self.path.split("?")[0].split("/")
        if len(parts) < 2 or not hmac.compare_digest(parts[1].encode(), self.server.secret.encode()):
            self._send(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return None
        return [p for p in parts[2:] if p]

    def do_GET(self):
        route = self._route()
        if route is None:
            return
        store = self.server.store
        if route == []:
            self._send(HTTPStatus.OK, page(), "text/html; charset=utf-8")
        elif route == ["api", "notes"]:
            self._send(HTTPStatus.OK, store.summary())
        elif len(route) == 3 and route[:2] == ["api", "note"] and route[2].isdigit():
            try:
                self._send(HTTPStatus.OK, store.note(int(route[2])))
            except IndexError as e:
                self._send(HTTPStatus.NOT_FOUND, {"error": str(e)})
        else:
            self._send(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self):
        route = self._route()
        if route is None:
            return
        if not (len(route) == 3 and route[:2] == ["api", "note"] and route[2].isdigit()):
            self._send(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_BODY:
            self._send(HTTPStatus.BAD_REQUEST, {"error": "a request body of JSON is needed"})
            return
        try:
            body = json.loads(self.rfile.read(length))
            saved = self.server.store.save_note(int(route[2]), body.get("spans"), body.get("reviewed"))
        except IndexError as e:
            self._send(HTTPStatus.NOT_FOUND, {"error": str(e)})
        except (ValueError, AttributeError) as e:
            self._send(HTTPStatus.BAD_REQUEST, {"error": str(e) if not isinstance(e, json.JSONDecodeError)
                                                else "the body is not JSON"})
        except (FormatError, OSError) as e:
            logger.error("itdeid review: saving note %s failed: %s", route[2], e)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"not saved: {e}"})
        else:
            self._send(HTTPStatus.OK, saved)

    def _send(self, status, body, content_type="application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy",
                         "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                         "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'")
        self.end_headers()
        self.wfile.write(data)
