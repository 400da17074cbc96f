"""Try every way out to the network; print what happened to each attempt.

The outside addresses are the documentation ranges (TEST-NET-1, 2001:db8::/32): never anybody's host,
so even a broken sandbox would send nothing to a real machine.
"""
import json
import socket
import sys
import time


def attempt(name, action):
    began = time.monotonic()
    try:
        action()
        result = "succeeded"
    except OSError as exc:
        result = type(exc).__name__ + ":" + str(exc.errno)
    results[name] = {"result": result, "seconds": round(time.monotonic() - began, 3)}


def tcp(host, port):
    return lambda: socket.create_connection((host, port), timeout=3).close()


def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x", ("192.0.2.1", 53))


def family(number, kind=socket.SOCK_RAW):
    return lambda: socket.socket(number, kind).close()


results = {}
attempt("postgres", tcp("127.0.0.1", 5432))
attempt("redis", tcp("127.0.0.1", 6379))
attempt("host_listener", tcp("127.0.0.1", int(sys.argv[1])))
attempt("outside", tcp("192.0.2.1", 80))
attempt("outside_v6", tcp("2001:db8::1", 80))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("udp", udp)
attempt("netlink", family(socket.AF_NETLINK))
attempt("packet", family(socket.AF_PACKET))
attempt("vsock", family(40, socket.SOCK_STREAM))
with open("/proc/net/dev") as table:  # if_nameindex() would need netlink, which is refused
    interfaces = sorted(line.split(":")[0].strip() for line in table.readlines()[2:])
print(json.dumps({"results": results, "interfaces": interfaces}), flush=True)
