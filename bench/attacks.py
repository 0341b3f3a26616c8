"""What one hostile client costs everyone else: three attacks on a real server, others timed.

Seeds a temporary SQLite database, starts ``festival-api serve`` (waitress, its default
settings: 8 threads, ``CONNECTION_LIMIT`` 2000, ``CONNECTIONS_PER_ADDRESS`` 100) on a loopback
port, and runs each attack for ``--seconds`` while a visitor from 127.0.0.2 asks, on a new
connection every ``--every`` seconds (0.04: about 400 of each in 20 s, so that p99 is not
the slowest one or two), for a small page (``/subfests``) and for the data port's ``/healthz``:

- ``none``: no attack (the visitor alone);
- ``slow readers``: 8 connections from one address (127.0.0.50) each pipeline 100 requests
  for a 370 kB page (``/candidates?subFestSlug=general&limit=500``) and read a byte a second;
- ``silent`` / ``drip`` / ``partial``: 25 addresses (127.0.0.10-34) × 100 connections that
  send nothing, one header byte a second, or a request line and one header, reopened as the
  server closes them (2,500 against a limit of 2,000);
- ``wrong keys``: a client at 127.0.0.60 sending random keys as fast as it can and, at the
  same address, a right key five times a second (its answers are printed too).

    .venv/bin/python bench/attacks.py [--seconds 20] [--only slow,silent] [--code DIR] [--before DIR]
                                      [--shared /work/shared/attacks] [--no-pin] [--every 0.04]

Prints one line per attack: the visitor's answers (200s of all: the sample count), p50, p99
and slowest, for the page and for ``/healthz``, and the load average before and after.
``--code DIR`` serves another checkout's code (``git worktree add DIR COMMIT``); ``--before
DIR`` serves a second checkout's code beside it, on the same database, and runs each attack
on it just before this code's, so that both meet the same load. The attackers run in a
process of their own (the visitor's timings are not held by their Python). With ``--pin``
(the default on 2 CPUs or more) they are held to the upper half of the CPUs this process may
use and the server and the visitor to the lower half (``sched_setaffinity``), as attackers
on other machines would be: the figures are then the server's, not a CPU shared with 2,500
connections' Python. ``--no-pin`` leaves all on the same CPUs, an upper bound of what an
attack costs on one machine (other work on the machine shares the CPUs either way). ``--shared DIR`` runs the hostile
clients of ``DIR`` instead of this module's (``slow_readers.py`` with one address,
``lockout.py``, ``wrong_keys.py``, the shared attack scripts: their own probes' JSON line is
printed too).
"""
import argparse
import collections
import multiprocessing
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from attackers import Crowd, SlowReaders, cpu_halves, pinned
from harness import FESTIVAL, cli, free_port

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


def visitor(port, key, stop, results, every):
    while not stop.is_set():
        results["page"].append(get(port, f"{API}/subfests", key))
        results["healthz"].append(get(port, "/healthz"))
        stop.wait(every)


def run_until(stop, attacker):
    """Keep ``attacker`` (bench/attackers.py) at work until ``stop`` is set."""
    stop.wait()
    attacker.close()


def slow_readers(port, key, stop):
    run_until(stop, SlowReaders(port, key, "127.0.0.50", count=8, depth=100, path=BIG_PAGE))


def crowd(port, key, stop, mode):
    run_until(stop, Crowd(port, key, mode, addresses=25, each=100, path=f"{API}/subfests"))


GUESSER = "127.0.0.60"


def guesser(port, key, stop, told):
    """Random keys from ``GUESSER`` as fast as the server answers; the statuses' counts are
    put on ``told``."""
    statuses = collections.Counter()
    while not stop.is_set():
        statuses[str(get(port, f"{API}/subfests", "fds_" + secrets.token_urlsafe(32), source=GUESSER)[0])] += 1
    told.put(dict(statuses))


def right_key_beside_guesser(port, key, stop, results):
    while not stop.is_set():
        results["right key, same address"].append(get(port, f"{API}/subfests", key, source=GUESSER))
        stop.wait(0.2)


ATTACKS = {
    "none": None,
    "slow readers": slow_readers,
    "silent": lambda port, key, stop: crowd(port, key, stop, "silent"),
    "drip": lambda port, key, stop: crowd(port, key, stop, "drip"),
    "partial": lambda port, key, stop: crowd(port, key, stop, "partial"),
    "wrong keys": guesser,
}


def cpu_list(cpus):
    return ",".join(str(cpu) for cpu in sorted(cpus))


def summary(answers):
    ok = sorted(seconds for status, seconds in answers if status == 200)
    statuses = collections.Counter(str(status) for status, _ in answers)

    def ms(q):
        return f"{ok[min(len(ok) - 1, int(q * len(ok)))] * 1000:7.1f}" if ok else "      -"

    slowest = max((seconds for _, seconds in answers), default=0)
    return (f"{len(ok):>3}/{len(answers):<3} answered, p50 {ms(0.5)} p99 {ms(0.99)} max {slowest * 1000:7.1f} ms"
            + ("" if set(statuses) <= {"200"} else f" {dict(statuses)}"))


def load():
    return open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="each attack's duration (default 20)")
    parser.add_argument("--only", help="comma-separated attacks to run (default all): " + ", ".join(ATTACKS))
    parser.add_argument("--code", default=ROOT, help="the checkout whose code serves (default this one)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads (default 8)")
    parser.add_argument("--before", help="a checkout of earlier code, served beside it and attacked just before it")
    parser.add_argument("--shared", help="a folder of the shared attack scripts, run as the attackers")
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction,
                        help="the attackers on half the CPUs, the server and the visitor on the other half "
                             "(default: on with 2 CPUs or more)")
    parser.add_argument("--every", type=float, default=0.04,
                        help="seconds the visitor waits between its requests (default 0.04)")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",")] if args.only else list(ATTACKS)
    unknown = [name for name in chosen if name not in ATTACKS]
    if unknown:
        parser.error(f"unknown attack(s): {', '.join(unknown)}")
    halves = cpu_halves()
    if args.pin and halves is None:
        parser.error("--pin needs 2 CPUs or more")
    args.pin = halves is not None if args.pin is None else args.pin
    args.server_cpus, args.attacker_cpus = halves if args.pin else (None, None)
    if args.pin:
        # The servers, started from here, and the visitor's thread keep these CPUs.
        os.sched_setaffinity(0, args.server_cpus)
    codes = ([("before", args.before)] if args.before else []) + [("now" if args.before else "", args.code)]
    with tempfile.TemporaryDirectory(prefix="attacks-") as workdir:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/festival.db", "LOG_LEVEL": "WARNING"}
        cli("seed", env=env)
        key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]
        with open(f"{workdir}/key.txt", "w") as keyfile:
            keyfile.write(key)
        servers = []
        try:
            for label, folder in codes:
                servers.append((label, folder, *serve(folder, env, args.threads, f"{workdir}/server-{label}.log")))
            described = []
            for label, folder, _, _ in servers:
                commit = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True, check=False).stdout.strip()
                described.append(f"{label + ' ' if label else ''}code {commit or folder}")
            placed = (f"server and visitor on CPU {cpu_list(args.server_cpus)}, attackers on CPU "
                      f"{cpu_list(args.attacker_cpus)} (pinned)" if args.pin
                      else f"{os.cpu_count()} CPUs shared with the attackers (not pinned)")
            print(f"{', '.join(described)}, {args.threads} threads, {args.seconds:g} s each, a visit every "
                  f"{args.every:g} s, {placed}; load {' '.join(load())}")
            for name in chosen:
                for label, _, port, _ in servers:
                    run_attack(name, label, port, key, f"{workdir}/key.txt", args)
            print(f"load {' '.join(load())}")
        finally:
            for _, _, _, server in servers:
                server.terminate()
                server.wait(timeout=10)


def serve(folder, env, threads, log_path):
    """``(port, process)``: ``festival-api serve`` of ``folder``'s code, answering."""
    port = free_port()
    with open(log_path, "wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port),
                                   "--threads", str(threads)], env={**env, "PYTHONPATH": folder},
                                  stdout=subprocess.DEVNULL, stderr=log, cwd=folder)
    deadline = time.monotonic() + 30
    while get(port, "/healthz", timeout=2)[0] != 200:
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            with open(log_path) as written:
                sys.exit(f"the server did not start: {written.read()[-2000:]}")
        time.sleep(0.2)
    return port, server


# The shared attack scripts' command for each attack (after the script: PORT KEYFILE ...).
SHARED = {
    "slow readers": ("slow_readers.py", "{port} {keyfile} 8 100 {seconds}", {"SR_ADDRS": "1"}),
    "silent": ("lockout.py", "{port} {keyfile} silent --addrs 25 --per-addr 100 --duration {seconds}", {}),
    "drip": ("lockout.py", "{port} {keyfile} drip --addrs 25 --per-addr 100 --duration {seconds}", {}),
    "partial": ("lockout.py", "{port} {keyfile} partial --addrs 25 --per-addr 100 --duration {seconds}", {}),
    "wrong keys": ("wrong_keys.py", "{port} {keyfile} --rate 0 --duration {seconds}", {}),
}


def run_attack(name, label, port, key, keyfile, args):
    """Run attack ``name`` on the server at ``port`` for ``args.seconds`` (after 2 s to set
    it up) while the visitor asks; print the visitor's figures."""
    context = multiprocessing.get_context("fork")
    stop, results, counts = context.Event(), collections.defaultdict(list), context.Queue()
    attack = ATTACKS[name]
    attacker = shared = right_key = None
    if attack is not None and args.shared:
        script, words, extra = SHARED[name]
        command = [sys.executable, os.path.join(args.shared, script),
                   *words.format(port=port, keyfile=keyfile, seconds=args.seconds + 3).split()]
        shared = subprocess.Popen(command, env={**os.environ, **extra}, stdout=subprocess.PIPE, text=True,
                                  preexec_fn=(lambda: os.sched_setaffinity(0, args.attacker_cpus)) if args.pin else None)
    elif attack is not None:
        extra = (counts,) if attack is guesser else ()
        attacker = context.Process(target=pinned, args=(args.attacker_cpus, attack, port, key, stop, *extra),
                                   daemon=True)
        attacker.start()
    if attack is guesser and shared is None:
        right_key = threading.Thread(target=right_key_beside_guesser, args=(port, key, stop, results), daemon=True)
        right_key.start()
    if attacker is not None or shared is not None:
        time.sleep(2)  # the attack in place
    watcher = threading.Thread(target=visitor, args=(port, key, stop, results, args.every), daemon=True)
    watcher.start()
    time.sleep(args.seconds)
    stop.set()
    watcher.join(timeout=30)
    if right_key is not None:
        right_key.join(timeout=30)
    guesses = counts.get(timeout=30) if attack is guesser and shared is None else None
    if attacker is not None:
        attacker.join(timeout=30)
    title = f"{name}{' (' + label + ')' if label else ''}"
    print(f"{title:<13} page    {summary(results['page'])}")
    print(f"{'':<13} healthz {summary(results['healthz'])}")
    if guesses is not None:
        print(f"{'':<13} right key at the guesser's address {summary(results['right key, same address'])}")
        print(f"{'':<13} guesser {guesses}")
    if shared is not None:
        try:
            told = shared.communicate(timeout=60)[0].strip().splitlines()
        except subprocess.TimeoutExpired:
            shared.kill()
            told = ["(the script did not end)"]
        print(f"{'':<13} {os.path.basename(SHARED[name][0])}: {told[-1] if told else '(nothing printed)'}")
    sys.stdout.flush()
    if name in ("silent", "drip", "partial"):
        time.sleep(6)  # what the crowd left is closed (HEADER_TIMEOUT 5 s) before the next

if __name__ == "__main__":
    main()
