"""A websocket's outbox writes through the websocket protocol itself (issue 28 item 1: fewer
messages and system calls per move): what was queued since the last wake-up goes out as frames
in one write to the socket, states still coalesce, and a socket whose buffer stays full is
closed after ``send_timeout`` (4408) as before."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from server_helpers import Client, create_room, dice_moves, join, live_server
from tabletris.server.connection import Connection


class Socket:
    """A fake ``connection.Frames``: records each write; ``full`` keeps its buffer full."""

    def __init__(self, full: bool = False) -> None:
        self.writes: list[list[str]] = []
        self.full = full
        self.closed = False

    def write_texts(self, texts: Sequence[str]) -> bool:
        if self.closed:
            raise ConnectionError("closed")
        if self.full:
            return False
        self.writes.append(list(texts))
        return True

    async def drained(self) -> None:
        while self.full:
            await asyncio.sleep(0.01)


async def unused(_text: str) -> None:
    raise AssertionError("the ASGI send is not used when the protocol writes")


@pytest.mark.asyncio
async def test_what_is_queued_together_goes_out_in_one_write_in_order() -> None:
    socket = Socket()
    conn = Connection(unused, 0, frames=socket)
    conn.send_latest("state", '{"type":"state","n":1}')
    conn.send_latest("state", '{"type":"state","n":2}')  # replaces the one not yet sent
    conn.send('{"type":"ack","id":7}')
    await asyncio.sleep(0.05)
    assert socket.writes == [['{"type":"state","n":2}', '{"type":"ack","id":7}']]
    conn.send('{"type":"pong"}')
    await asyncio.sleep(0.05)
    assert socket.writes[1:] == [['{"type":"pong"}']]
    socket.closed = True
    conn.send('{"type":"pong"}')
    await asyncio.wait_for(conn.dead.wait(), 5)
    assert conn.close_code == 1006


@pytest.mark.asyncio
async def test_a_socket_whose_buffer_stays_full_is_closed_after_the_send_timeout() -> None:
    socket = Socket(full=True)
    conn = Connection(unused, None, outbox=8, send_timeout=0.3)
    conn.frames = socket
    for i in range(100):
        conn.send_latest("state", json.dumps({"type": "state", "n": i}))
        await asyncio.sleep(0)
    await asyncio.wait_for(conn.dead.wait(), 5)
    assert not conn.alive and conn.close_code == 4408 and not socket.writes


@pytest.mark.asyncio
async def test_a_buffer_that_drains_in_time_delivers_everything() -> None:
    socket = Socket(full=True)
    conn = Connection(unused, None, send_timeout=5)
    conn.frames = socket
    conn.send('{"type":"pong","id":1}')
    conn.send('{"type":"pong","id":2}')
    await asyncio.sleep(0.1)
    socket.full = False
    await asyncio.sleep(0.1)
    assert socket.writes == [['{"type":"pong","id":1}', '{"type":"pong","id":2}']] and conn.alive
    conn.task.cancel()


def test_the_server_hands_each_websocket_its_protocol_writer(tmp_path: Path) -> None:
    """Through the real server: the room's connections write through uvicorn's websocket
    protocol, and a move's state and ack arrive, state first, as before."""
    with live_server(tmp_path / "outbox.sqlite3") as server:
        room = create_room(server.url, {"game": "dice", "rules": {"width": 6, "height": 6},
                                        "seats": [{"kind": "open"}, {"kind": "open"}]})
        tokens = [join(server.url, room["id"], name)["token"] for name in ("Ann", "Bob")]

        async def play() -> list[str]:
            clients = [await Client.connect(server.ws, room["id"], t) for t in tokens]
            state = await clients[0].state_where(lambda m: bool(m["private"] and m["private"]["options"]))
            await clients[1].state_where(lambda m: True)
            conns = server.app.state.lobby.rooms[room["id"]].conns
            assert len(conns) == 2 and all(c.frames is not None for c in conns)
            msg_id = await clients[0].send({"type": "move", **dice_moves(state)[0]})
            await clients[0].until(lambda m: m.get("id") == msg_id)
            kinds = [m["type"] for m in clients[0].received[-2:]]
            for c in clients:
                await c.close()
            return kinds

        assert asyncio.run(play()) == ["state", "ack"]
