"""Cloud metadata servers on loopback: Google's (``computeMetadata/v1``) and AWS EC2's (IMDSv2).

Each is a real HTTP server that answers the requests those services answer, with the headers
they require: Google's only to ``Metadata-Flavor: Google``; EC2's token (``PUT
/latest/api/token`` with ``X-aws-ec2-metadata-token-ttl-seconds``) then reads with that token
in ``X-aws-ec2-metadata-token``. Anything else is a 404 (or 401 without the token), as the real
services answer. Every request is recorded.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["MetadataServer", "ec2_metadata", "gcp_metadata"]


class MetadataServer:
    """A running server: its base URL and the requests it got (``(method, path)``)."""

    def __init__(self, server: ThreadingHTTPServer) -> None:
        self._server = server
        self.requests: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def _serve(answer: object) -> Iterator[MetadataServer]:
    holder: list[MetadataServer] = []

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, method: str) -> None:
            holder[0].requests.append((method, self.path))
            status, body = answer(method, self.path, self.headers)  # type: ignore[operator]
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply("GET")

        def do_PUT(self) -> None:
            self._reply("PUT")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(MetadataServer(server))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def gcp_metadata(values: Mapping[str, str]) -> Iterator[MetadataServer]:
    """Google's metadata server; its base URL stands for ``.../computeMetadata/v1``, and
    ``values`` are the answers by the path under it (``/project/project-id``, ...)."""

    def answer(method: str, path: str, headers: Mapping[str, str]) -> tuple[int, str]:
        if headers.get("Metadata-Flavor") != "Google":
            return 403, "Missing Metadata-Flavor:Google header."
        if method == "GET" and path in values:
            return 200, values[path]
        return 404, "not found"

    with _serve(answer) as server:
        yield server


@contextmanager
def ec2_metadata(region: str, token: str = "AQAEAN-token==") -> Iterator[MetadataServer]:
    """EC2's instance metadata service, version 2: a token first, then the instance's region."""

    def answer(method: str, path: str, headers: Mapping[str, str]) -> tuple[int, str]:
        if method == "PUT" and path == "/latest/api/token":
            if not headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                return 400, "missing ttl"
            return 200, token
        if method == "GET" and path == "/latest/meta-data/placement/region":
            if headers.get("X-aws-ec2-metadata-token") != token:
                return 401, "unauthorized"
            return 200, region
        return 404, "not found"

    with _serve(answer) as server:
        yield server
