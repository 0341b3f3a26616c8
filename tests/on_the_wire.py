"""A real waitress server (``app.server.create_server``) in a thread, and raw HTTP exchanges with it."""
import contextlib
import socket
import threading

from app.server import create_server


@contextlib.contextmanager
def serving(app, **settings):
    """Serve ``app`` on a free loopback port in a thread; yield the port, close the server after."""
    server = create_server(app, host="127.0.0.1", port=0, **settings)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        server.close()
        thread.join(timeout=5)


def exchange(port, raw):
    """Send ``raw``; (status, the raw header list in order, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(raw)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    return int(status_line.split()[1]), [tuple(line.split(": ", 1)) for line in lines], body
