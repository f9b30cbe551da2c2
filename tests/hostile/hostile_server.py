"""A hostile index on 127.0.0.1: an HTTP/1.1 server in a thread whose every
route is a function that writes its own response, bytes and headers as
crafted as a case needs (lying Content-Length, redirects to file://,
bodies that never end). It logs each request with its Authorization
header and counts the body bytes each route got onto the socket.
"""
import http.server
import itertools
import socket
import sys
import threading
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # the test prints what matters itself
        pass

    def do_GET(self):
        server = self.server
        path = self.path.split("?", 1)[0]
        with server.lock:
            server.requests.append({"path": path, "authorization": self.headers.get("Authorization"),
                                    "range": self.headers.get("Range")})
        route = server.routes.get(path)
        try:
            if route is None:
                self.respond(404, b"not here\n")
            else:
                route(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on a body it should not want: the point of some cases

    def respond(self, status, body, content_type="text/html", headers=(), length=None):
        """A whole response; `length` overrides the Content-Length (a lie when it differs)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.send(body)

    def send(self, data):
        self.wfile.write(data)
        with self.server.lock:
            self.server.sent[self.path] = self.server.sent.get(self.path, 0) + len(data)

    def chunked(self, status, chunks, content_type="application/octet-stream", headers=()):
        """A body of unknown length (Transfer-Encoding: chunked), from an iterable."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        for chunk in chunks:
            self.send(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        self.send(b"0\r\n\r\n")

    def trickle(self, data, interval=0.5, limit_s=60):
        """Writes `data` (raw: a body, or a whole response with its headers) one byte
        per `interval` seconds, cycling through it, until the client hangs up or
        `limit_s` has passed: a server that is never quite silent."""
        deadline = time.monotonic() + limit_s
        for i in itertools.count():
            if time.monotonic() > deadline:
                return
            self.send(data[i % len(data):i % len(data) + 1])
            self.wfile.flush()
            time.sleep(interval)

    def redirect(self, location, status=302):
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes = {}
        self.requests = []
        self.sent = {}
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def handle_error(self, request, client_address):
        # A client that hangs up on a body it refused is what several cases want.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)

    @property
    def port(self):
        return self.server_address[1]

    def url(self, path="", credentials=None):
        auth = f"{credentials}@" if credentials else ""
        return f"http://{auth}127.0.0.1:{self.port}{path}"

    def reset(self):
        with self.lock:
            self.routes.clear()
            self.requests.clear()
            self.sent.clear()

    def close(self):
        self.shutdown()
        self.server_close()


def closed_port():
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
