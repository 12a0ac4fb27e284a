"""The HTTP server's listening sockets, bound before anything is printed, and the uvicorn server that serves them.

Bound by fsguard, not by uvicorn: uvicorn binds after start-up, so a port already taken was found only after the
banner had printed a URL and a client config for it (which another program answers), and it exited 3. Bound first,
such a port is a start-up error (exit 2) with nothing printed but what to do, and no other process can take the
port between the check and the serving.
"""

from __future__ import annotations

import errno
import logging
import socket

import uvicorn

from fsguard.config import Settings

logger = logging.getLogger("uvicorn.error")  # where uvicorn says it is running, when it binds itself


def listening_sockets(settings: Settings) -> list[socket.socket]:
    """Sockets listening on every address ``settings.host`` names, at ``settings.port``.

    Bound as asyncio's ``create_server`` binds a host and port (what uvicorn asked of it): one socket per address
    (``localhost`` is 127.0.0.1 and ::1), ``SO_REUSEADDR``, IPv6 sockets IPv6 only, and an address family this
    machine lacks skipped. They listen at once, so a client that connects before uvicorn serves waits, never refused.

    Raises:
        OSError: An address could not be bound (:func:`listen_refusal` words it); none is left open.
    """
    found = socket.getaddrinfo(settings.host, settings.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    unavailable = OSError(errno.EADDRNOTAVAIL, f"{settings.host} names no address of this machine")
    try:
        for family, kind, protocol, _, address in dict.fromkeys(found):
            try:
                sock = socket.socket(family, kind, protocol)
            except OSError:
                continue  # a family this machine cannot open, as create_server skips it
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                sockets.pop().close()
                if exc.errno != errno.EADDRNOTAVAIL:
                    raise
                unavailable = exc  # ::1 on a machine with IPv6 off: the other addresses serve
                continue
            sock.listen()
        if not sockets:
            raise unavailable
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def listen_refusal(settings: Settings, exc: OSError) -> str:
    """What to tell the user whose ``--host``/``--port`` could not be listened on."""
    where = f"{settings.host} port {settings.port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"fsguard: cannot listen on {where}: another process is listening there. Pass another port with --port, "
            "or stop that process."
        )
    if exc.errno == errno.EACCES:
        return (
            f"fsguard: cannot listen on {where}: permission denied (ports below 1024 need privileges). Pass "
            "--port 1024 or above."
        )
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"fsguard: cannot listen on {where}: {exc.strerror or exc}. Pass --host an address of this machine "
            "(127.0.0.1 is the default)."
        )
    return f"fsguard: cannot listen on {where}: {exc.strerror or exc}. Pass another --host or --port."


class PreboundServer(uvicorn.Server):
    """uvicorn's server, told where it runs when it serves sockets it was handed (it says so only when it binds)."""

    def __init__(self, config: uvicorn.Config, url: str) -> None:
        super().__init__(config)
        self._url = url

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            logger.info("Uvicorn running on %s (Press CTRL+C to quit)", self._url)
