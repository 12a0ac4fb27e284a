"""fsguard's stdio transport when it ends: what the pipe has not taken yet still reaches the client."""

from __future__ import annotations

import asyncio
import os
import threading

import anyio

from fsguard.stdio import _InFlight, _Stdout, closed_flushed


def test_closing_stdout_flushes_what_the_pipe_had_not_taken_yet() -> None:
    read_end, write_end = os.pipe()
    payload = os.urandom(1 << 20)  # far more than a pipe holds: most of it waits in the transport's buffer
    received = bytearray()

    def read() -> None:
        with os.fdopen(read_end, "rb", 0) as pipe:
            while chunk := pipe.read(1 << 16):
                received.extend(chunk)

    reader = threading.Thread(target=read)

    async def answer_then_end() -> None:
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(write_end, "wb", 0)
        # stdout's protocol as the server makes it (the stream's own has no way to wait for the close)
        transport, protocol = await loop.connect_write_pipe(lambda: _Stdout(_InFlight()), pipe)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        writer.write(payload)
        reader.start()  # the client reads only now: the pipe is full and the rest is in the transport's buffer
        await closed_flushed(writer)

    anyio.run(answer_then_end)  # the loop ends with the call, as the server's does
    reader.join(timeout=60)
    assert not reader.is_alive()
    assert bytes(received) == payload
