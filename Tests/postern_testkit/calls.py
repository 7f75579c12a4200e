"""Small HTTP calls on the standard library: one request, every status an answer."""

import json
import urllib.error
import urllib.request


def http(base, method, path, body=None, headers=None, bearer=None):
    """(status, response headers, parsed JSON or text) of one request; errors are answers too."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    request = urllib.request.Request(base + path if path.startswith("/") else path, method=method, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    if bearer:
        request.add_header("Authorization", "Bearer " + bearer)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, head, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, head, raw = error.code, error.headers, error.read()
    try:
        return status, head, json.loads(raw) if raw else None
    except ValueError:
        return status, head, raw.decode("utf-8", "replace")
