"""What one hostile client costs everyone else: three attacks on a real server, others timed.

Seeds a temporary SQLite database, starts ``festival-api serve`` (waitress, its default
settings: 8 threads, ``CONNECTION_LIMIT`` 2000, ``CONNECTIONS_PER_ADDRESS`` 100) on a loopback
port, and runs each attack for ``--seconds`` while a visitor from 127.0.0.2 asks, on a new
connection every 0.2 s, for a small page (``/subfests``) and for the data port's ``/healthz``:

- ``none``: no attack (the visitor alone);
- ``slow readers``: 8 connections from one address (127.0.0.50) each pipeline 100 requests
  for a 370 kB page (``/candidates?subFestSlug=general&limit=500``) and read a byte a second;
- ``silent`` / ``drip`` / ``partial``: 25 addresses (127.0.0.10-34) × 100 connections that
  send nothing, one header byte a second, or a request line and one header, reopened as the
  server closes them (2,500 against a limit of 2,000);
- ``wrong keys``: a client at 127.0.0.60 sending random keys as fast as it can and, at the
  same address, a right key five times a second (its answers are printed too).

    .venv/bin/python bench/attacks.py [--seconds 20] [--only slow,silent] [--code DIR]

Prints one line per attack: the visitor's answers (200s of all), p50, p99 and slowest, for
the page and for ``/healthz``, and the load average before and after. ``--code DIR`` serves
another checkout's code (``git worktree add DIR COMMIT``), to compare before and after on the
same machine. The attackers run in this process: on a small machine they take CPU from the
server too, so the figures are an upper bound of what the attack costs.
"""
import argparse
import collections
import os
import secrets
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from result_day import FESTIVAL, cli, free_port

API = "/public-api/v1"
BIG_PAGE = f"{API}/candidates?subFestSlug=general&limit=500"
VISITOR = "127.0.0.2"


def get(port, path, key=None, source=VISITOR, timeout=10.0):
    """``(status or error name, seconds)`` of one request on a new connection."""
    started = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as sock:
            head = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            if key:
                head += f"X-API-Key: {key}\r\n"
            sock.sendall((head + "\r\n").encode())
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return int(data[9:12]), time.perf_counter() - started
    except Exception as error:  # noqa: BLE001 - a timeout or reset is what is measured
        return type(error).__name__, time.perf_counter() - started


def visitor(port, key, stop, results):
    while not stop.is_set():
        results["page"].append(get(port, f"{API}/subfests", key))
        results["healthz"].append(get(port, "/healthz"))
        stop.wait(0.2)


def slow_readers(port, key, stop, count=8, depth=100, source="127.0.0.50"):
    sockets = []
    for i in range(count):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        sockets.append([sock, b"".join(f"GET {BIG_PAGE}&n={i}_{j} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n"
                                       .encode() for j in range(depth))])
    while not stop.is_set():
        for pair in sockets:
            sock, unsent = pair
            try:
                if unsent:
                    pair[1] = unsent[sock.send(unsent):]
                sock.recv(1)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                pass
        stop.wait(1)
    for sock, _ in sockets:
        sock.close()


def crowd(port, key, stop, mode, addresses=25, each=100):
    payload = (f"GET {API}/subfests HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\nX-Pad: {'a' * 200}\r\n\r\n").encode()

    def hold(source):
        selector, sent = selectors.DefaultSelector(), {}

        def open_one():
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((source, 0))
            try:
                sock.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            except OSError:
                sock.close()
                return
            selector.register(sock, selectors.EVENT_READ)
            sent[sock] = 0
            if mode == "partial":
                try:
                    sock.send(f"GET {API}/subfests HTTP/1.1\r\nHost: x\r\n".encode())
                except OSError:
                    pass

        for _ in range(each):
            open_one()
        dripped = time.monotonic()
        while not stop.is_set():
            for ready, _ in selector.select(timeout=0.2):
                sock = ready.fileobj
                try:
                    sock.recv(65536)
                except OSError:
                    pass
                selector.unregister(sock)
                sock.close()
                del sent[sock]
                open_one()
            if mode == "drip" and time.monotonic() - dripped >= 1:
                dripped = time.monotonic()
                for sock, count in list(sent.items()):
                    if count < len(payload):
                        try:
                            sock.send(payload[count:count + 1])
                            sent[sock] = count + 1
                        except OSError:
                            pass
        for sock in sent:
            sock.close()

    threads = [threading.Thread(target=hold, args=(f"127.0.0.{10 + i}",), daemon=True) for i in range(addresses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def wrong_keys(port, key, stop, results, source="127.0.0.60"):
    def guesser():
        while not stop.is_set():
            results["guesser"].append(get(port, f"{API}/subfests", "fds_" + secrets.token_urlsafe(32), source=source))

    thread = threading.Thread(target=guesser, daemon=True)
    thread.start()
    while not stop.is_set():
        results["right key, same address"].append(get(port, f"{API}/subfests", key, source=source))
        stop.wait(0.2)
    thread.join()


ATTACKS = {
    "none": None,
    "slow readers": slow_readers,
    "silent": lambda port, key, stop: crowd(port, key, stop, "silent"),
    "drip": lambda port, key, stop: crowd(port, key, stop, "drip"),
    "partial": lambda port, key, stop: crowd(port, key, stop, "partial"),
    "wrong keys": "wrong keys",
}


def summary(answers):
    ok = sorted(seconds for status, seconds in answers if status == 200)
    statuses = collections.Counter(str(status) for status, _ in answers)

    def ms(q):
        return f"{ok[min(len(ok) - 1, int(q * len(ok)))] * 1000:7.1f}" if ok else "      -"

    slowest = max((seconds for _, seconds in answers), default=0)
    return (f"{len(ok):>3}/{len(answers):<3} p50 {ms(0.5)} p99 {ms(0.99)} max {slowest * 1000:7.1f} ms"
            + ("" if set(statuses) <= {"200"} else f" {dict(statuses)}"))


def load():
    return open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="each attack's duration (default 20)")
    parser.add_argument("--only", help="comma-separated attacks to run (default all): " + ", ".join(ATTACKS))
    parser.add_argument("--code", default=ROOT, help="the checkout whose code serves (default this one)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads (default 8)")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",")] if args.only else list(ATTACKS)
    unknown = [name for name in chosen if name not in ATTACKS]
    if unknown:
        parser.error(f"unknown attack(s): {', '.join(unknown)}")
    with tempfile.TemporaryDirectory(prefix="attacks-") as workdir:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/festival.db", "LOG_LEVEL": "WARNING"}
        cli("seed", env=env)
        key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]
        port = free_port()
        log = open(f"{workdir}/server.log", "wb")
        server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port),
                                   "--threads", str(args.threads)], env=env, stdout=subprocess.DEVNULL, stderr=log,
                                  cwd=args.code)
        try:
            deadline = time.monotonic() + 30
            while get(port, "/healthz", timeout=2)[0] != 200:
                if time.monotonic() > deadline or server.poll() is not None:
                    with open(f"{workdir}/server.log") as written:
                        sys.exit(f"the server did not start: {written.read()[-2000:]}")
                time.sleep(0.2)
            commit = subprocess.run(["git", "-C", args.code, "rev-parse", "--short", "HEAD"],
                                    capture_output=True, text=True, check=False).stdout.strip()
            print(f"code {commit or args.code}, {args.threads} threads, {args.seconds:g} s each, "
                  f"{os.cpu_count()} CPUs shared with the attackers; load {' '.join(load())}")
            for name in chosen:
                stop, results = threading.Event(), collections.defaultdict(list)
                attack = ATTACKS[name]
                if attack == "wrong keys":
                    attacker = threading.Thread(target=wrong_keys, args=(port, key, stop, results), daemon=True)
                elif attack is not None:
                    attacker = threading.Thread(target=attack, args=(port, key, stop), daemon=True)
                else:
                    attacker = None
                if attacker is not None:
                    attacker.start()
                    time.sleep(2)  # the attack in place
                watcher = threading.Thread(target=visitor, args=(port, key, stop, results), daemon=True)
                watcher.start()
                time.sleep(args.seconds)
                stop.set()
                watcher.join(timeout=30)
                if attacker is not None:
                    attacker.join(timeout=30)
                print(f"{name:<13} page    {summary(results['page'])}")
                print(f"{'':<13} healthz {summary(results['healthz'])}")
                if name == "wrong keys":
                    print(f"{'':<13} right key at the guesser's address {summary(results['right key, same address'])}")
                    print(f"{'':<13} guesser {dict(collections.Counter(str(s) for s, _ in results['guesser']))}")
                if name in ("silent", "drip", "partial"):
                    time.sleep(6)  # what the crowd left is closed (HEADER_TIMEOUT 5 s) before the next
            print(f"load {' '.join(load())}")
        finally:
            server.terminate()
            server.wait(timeout=10)
            log.close()


if __name__ == "__main__":
    main()
