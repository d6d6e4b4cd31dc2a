"""The server's own reader of websocket messages (``guard.guarded_ws``): a read that is exactly
one whole text frame is read without websockets' parser; everything else (a frame in pieces,
several frames in one read, fragments, control frames, bad UTF-8) still goes through websockets,
and the two never disagree about where a frame starts. Real clients on 127.0.0.1; the frames are
written raw onto the client's socket, so each case reaches the server as it is meant to."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from websockets.frames import Frame, Opcode

from server_helpers import Client, LiveServer, create_room, join, live_server, until


class Reads:
    """What the server's websocket protocol was given per read, and which reads it read itself."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.own: list[bool] = []


@pytest.fixture
def server(tmp_path: Any) -> Iterator[LiveServer]:
    with live_server(tmp_path / "reader.sqlite3") as s:
        yield s


@pytest.fixture
def reads(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> Reads:
    protocol = server.server.config.ws
    assert isinstance(protocol, type) and hasattr(protocol, "_read_text"), "the server runs guard.guarded_ws"
    seen = Reads()
    read_text = protocol._read_text
    data_received = protocol.data_received

    def counting_read_text(self: Any, data: bytes) -> bool:
        own = bool(read_text(self, data))
        seen.own.append(own)
        return own

    def recording_data_received(self: Any, data: bytes) -> None:
        seen.chunks.append(bytes(data))
        data_received(self, data)

    monkeypatch.setattr(protocol, "_read_text", counting_read_text)
    monkeypatch.setattr(protocol, "data_received", recording_data_received)
    return seen


async def seated(server: LiveServer) -> Client:
    room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
    token = join(server.url, room, "ann")["token"]
    client = await Client.connect(server.ws, room, token, compression=None)  # as the CLI's server: no deflate
    await client.state_where(lambda m: True)
    return client


def text_frame(message: dict[str, Any]) -> bytes:
    return Frame(Opcode.TEXT, json.dumps(message).encode()).serialize(mask=True)


async def pong(client: Client, msg_id: int) -> None:
    reply = await client.until(lambda m: m.get("id") == msg_id)
    assert reply == {"type": "pong", "id": msg_id}


@pytest.mark.asyncio
async def test_a_whole_frame_per_read_is_read_by_the_server_itself(server: LiveServer, reads: Reads) -> None:
    client = await seated(server)
    try:
        start = len(reads.own)
        for msg_id in range(100, 110):
            client.ws.transport.write(text_frame({"type": "ping", "id": msg_id}))
            await pong(client, msg_id)
        assert reads.own[start:] == [True] * 10
        asked = await client.send({"type": "state"})  # sent by the client's own websocket this time
        state = await client.until(lambda m: m.get("id") == asked)
        assert state["type"] == "state" and state["you"] == 0
        assert reads.own[-1] is True
    finally:
        await client.close()


def smuggling_frame(inner: bytes) -> tuple[bytes, bytes]:
    """A masked text frame whose bytes after its 2-byte header read as another whole text frame
    carrying ``inner``, and the frame's own text (ASCII, not JSON). With a mask key of this
    frame starting 0x81 and the inner key's last two bytes' top bits set, every byte of the
    outer text has its top bit clear (RFC 6455 5.3: the text is the masked bytes XOR the key)."""
    key = bytes([0x11, 0x22, 0xA3, 0xB4])
    rest = bytes([0x81, 0x80 | len(inner)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(inner))
    mask, masked = rest[:4], rest[4:]
    text = bytes(b ^ mask[i % 4] for i, b in enumerate(masked))
    assert text.isascii() and len(text) < 126
    return bytes([0x81, 0x80 | len(text)]) + rest, text


@pytest.mark.asyncio
async def test_a_frame_split_after_its_header_is_read_whole_by_websockets(server: LiveServer, reads: Reads) -> None:
    """The parser has taken the two header bytes and waits for the mask with nothing buffered:
    the rest, in a read of its own, must not be taken for a new frame, even where its bytes
    would read as one (a ping with id 66 here)."""
    client = await seated(server)
    try:
        frame, text = smuggling_frame(json.dumps({"type": "ping", "id": 66}).encode())
        before, own_before = len(reads.chunks), len(reads.own)
        client.ws.transport.write(frame[:2])
        await until(lambda: len(reads.chunks) > before, what="the server to read the header")
        client.ws.transport.write(frame[2:])
        await until(lambda: len(reads.chunks) > before + 1, what="the server to read the rest")
        client.ws.transport.write(text_frame({"type": "ping", "id": 67}))  # and the next one is whole again
        replies = []
        while not replies or replies[-1].get("id") != 67:
            replies.append(await client.until(lambda m: m.get("type") in ("pong", "error")))
        assert [r["type"] for r in replies] == ["error", "pong"], replies  # the frame's own text: not JSON
        assert replies[0]["error"] == "bad_json" and len(text) > 2
        assert reads.chunks[before:before + 2] == [frame[:2], frame[2:]]
        assert reads.own[own_before:] == [False, False, True]
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_several_frames_fragments_and_control_frames_go_through_websockets_in_order(
    server: LiveServer, reads: Reads
) -> None:
    client = await seated(server)
    try:
        two = text_frame({"type": "ping", "id": 1}) + text_frame({"type": "ping", "id": 2})
        client.ws.transport.write(two)
        await pong(client, 1)
        await pong(client, 2)
        text = json.dumps({"type": "ping", "id": 3}).encode()
        first = Frame(Opcode.TEXT, text[:5], fin=False).serialize(mask=True)
        rest = Frame(Opcode.CONT, text[5:], fin=True).serialize(mask=True)
        start = len(reads.own)
        client.ws.transport.write(first)
        await until(lambda: len(reads.own) > start, what="the first fragment to be read")
        client.ws.transport.write(rest)
        await pong(client, 3)
        await asyncio.wait_for(await client.ws.ping(), 10)  # a ping frame answered between messages
        client.ws.transport.write(text_frame({"type": "ping", "id": 4}))
        await pong(client, 4)
        assert reads.own[start:start + 2] == [False, False]  # the fragments
        assert reads.own[-1] is True
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_a_whole_frame_of_bad_utf8_still_closes_the_connection_1007(server: LiveServer, reads: Reads) -> None:
    client = await seated(server)
    try:
        client.ws.transport.write(Frame(Opcode.TEXT, b'{"type":"ping","id":"\xff"}').serialize(mask=True))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await client.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        assert reads.own[-1] is False
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_messages_read_faster_than_the_room_answers_stay_in_order(server: LiveServer, reads: Reads) -> None:
    """Thirty whole frames in a burst: the connection stops reading once a few wait for the app
    and starts again as it reads them; every one is answered, in order."""
    client = await seated(server)
    try:
        ids = list(range(1000, 1030))  # within the message burst (40)
        for msg_id in ids:
            client.ws.transport.write(text_frame({"type": "ping", "id": msg_id}))
        answered = []
        while len(answered) < len(ids):
            reply = await client.until(lambda m: m.get("type") == "pong")
            answered.append(reply["id"])
        assert answered == ids
    finally:
        await client.close()
