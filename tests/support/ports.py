"""ports — a loopback port for a server a test starts: one the kernel just gave
out and nobody listens on once the probe socket is closed (the server binds it
next; a port picked by hand would collide with another run on the machine)."""
import socket


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
