"""A stand-in origin for remote-hash URLs: every GET answers the same bytes."""

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def origin_server(body):
    """A loopback HTTP server (not yet serving) answering every GET with `body` as text/plain."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # one line per login would be noise
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    return server
