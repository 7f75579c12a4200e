"""Loopback ports and base URLs."""

import random
import socket


def _ephemeral_low():
    """The first port of the kernel's ephemeral range (Linux's default 32768 where /proc does not say)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count):
    """`count` distinct TCP ports on 127.0.0.1 that nothing is bound to right now, for servers the tests start.

    Drawn below the kernel's ephemeral range, not the kernel's pick for port 0: that pick comes from the range every
    outbound connection takes its source port from, and with the suites' thousands of client connections running
    beside a stage, a port picked and released was taken by one of them before the server it was for bound it (CI:
    HAProxy's "cannot bind socket (Address already in use)"). Below the range only another test's pick can take it,
    one in thousands. Bound together while drawn, so distinct, then released. A machine whose ephemeral range leaves
    fewer than 1024 unprivileged ports below it gets the kernel's picks, as before."""
    high = _ephemeral_low()
    low = max(1024, high - 16384)
    draw = (lambda: random.randrange(low, high)) if high - low >= 1024 else (lambda: 0)
    sockets = []
    try:
        for _ in range(100 * count):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", draw()))
            except OSError:
                s.close()
                continue
            sockets.append(s)
            if len(sockets) == count:
                return [s.getsockname()[1] for s in sockets]
        raise OSError(f"no {count} free loopback ports")
    finally:
        for s in sockets:
            s.close()


def free_port():
    """One port of `free_ports`."""
    return free_ports(1)[0]


def split_url(base):
    """(host, port) of a base URL such as `http://127.0.0.1:8080/`; port 80 when it names none."""
    rest = base.split("://", 1)[-1].rstrip("/")
    host, _, port = rest.partition(":")
    return host, int(port or 80)
