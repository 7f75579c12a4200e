"""A local webhook receiver for the client and cluster tests: records every POST (path, headers, body) and answers
each path with its scripted statuses (200 once the script is spent); a status of None holds the request open until
`release()`. Checks Mail.td's signature scheme: sha256= + hex HMAC-SHA256(secret, timestamp + "." + body)."""

import hashlib
import hmac
import http.server
import json
import threading
import time


def signature(secret, timestamp, body):
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


class Receiver:
    def __init__(self):
        self.received = []
        self.scripts = {}
        self.condition = threading.Condition()
        self.held = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.condition:
                    script = receiver.scripts.get(self.path, [])
                    status = script.pop(0) if script else 200
                    receiver.received.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                              "status": status, "at": time.monotonic()})
                    receiver.condition.notify_all()
                if status is None:
                    receiver.held.wait()
                    status = 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path):
        return self.base + path

    def script(self, path, statuses):
        with self.condition:
            self.scripts[path] = list(statuses)

    def release(self):
        self.held.set()

    def wait_for(self, predicate, timeout=60, what="a webhook request"):
        """The requests once `predicate(requests)` holds; raises after `timeout` seconds (a bound, not a pause)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not predicate(self.received):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for {what}; got {len(self.received)} request(s)")
                self.condition.wait(remaining)
            return list(self.received)

    def on(self, path):
        with self.condition:
            return [r for r in self.received if r["path"] == path]

    @staticmethod
    def verify(request, secret):
        headers = {k.lower(): v for k, v in request["headers"].items()}
        expected = signature(secret, headers.get("x-webhook-timestamp", ""), request["body"])
        return hmac.compare_digest(expected, headers.get("x-webhook-signature", ""))

    @staticmethod
    def event(request):
        return json.loads(request["body"])

    def stop(self):
        self.release()
        self.server.shutdown()
