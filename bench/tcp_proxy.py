"""A TCP forwarder in a process of its own, for the soak's faults (bench/soak.py): the web tier reaches
PostgreSQL through it, and the soak SIGKILLs it to take the database away from the web alone (every open
connection dies with it, as on a network partition), then starts it again on the same port.

    .venv/bin/python bench/tcp_proxy.py --listen 127.0.0.1:PORT --to 127.0.0.1:5432

Prints "listening" once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


async def forward(host: str, port: int, client_reader, client_writer) -> None:
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))


async def serve(listen: tuple[str, int], target: tuple[str, int]) -> None:
    server = await asyncio.start_server(lambda r, w: forward(*target, r, w), *listen, reuse_address=True,
                                        backlog=256)
    print("listening", flush=True)
    async with server:
        await server.serve_forever()


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", type=address, required=True, help="HOST:PORT to accept connections on")
    parser.add_argument("--to", type=address, required=True, help="HOST:PORT to forward them to")
    args = parser.parse_args()
    asyncio.run(serve(args.listen, args.to))


if __name__ == "__main__":
    main()
