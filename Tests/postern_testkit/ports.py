"""Loopback ports and base URLs."""

import socket


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick for port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def split_url(base):
    """(host, port) of a base URL such as `http://127.0.0.1:8080/`; port 80 when it names none."""
    rest = base.split("://", 1)[-1].rstrip("/")
    host, _, port = rest.partition(":")
    return host, int(port or 80)
