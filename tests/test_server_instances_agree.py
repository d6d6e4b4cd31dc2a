"""Two ``tabletris serve`` processes on one PostgreSQL and one Redis (issue 28 item 4): a room's
``GET /api/rooms/{id}`` and its lobby entry say the same on both, field by field. Its
``created`` differed by the ~30 ms between the creating instance's clock and the stored value."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_helpers import ServeProcess, create_room, join

SMALL = {"width": 5, "height": 6}


@pytest.fixture(scope="module")
def two(postgres_cluster: str, redis_url: str) -> Iterator[list[ServeProcess]]:
    from services import new_database

    db = new_database(postgres_cluster)
    started: list[ServeProcess] = []
    try:
        for _ in range(2):
            started.append(ServeProcess(db, extra=["--redis", redis_url]).start())  # type: ignore[arg-type]
        yield started
    finally:
        for server in started:
            server.stop()


def room_part(server: ServeProcess, room: str) -> dict[str, Any]:
    return dict(httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"])


def listed(server: ServeProcess, room: str) -> dict[str, Any]:
    found = [r for r in httpx.get(server.url + "/api/rooms", timeout=10).json() if r["id"] == room]
    assert len(found) == 1
    return dict(found[0])


def test_every_field_of_a_room_is_the_same_on_every_instance(two: list[ServeProcess]) -> None:
    a, b = two
    made = create_room(a.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    on_a, on_b = room_part(a, made["id"]), room_part(b, made["id"])
    assert on_a["created"] == on_b["created"] == made["created"]
    assert on_a == on_b
    assert listed(a, made["id"]) == listed(b, made["id"]) == on_a
    join(b.url, made["id"], "Ann", seat=0)  # a change made on the other instance

    def agree() -> bool:
        x, y = room_part(a, made["id"]), room_part(b, made["id"])
        return x == y and not x["seats"][0]["open"]

    end = time.monotonic() + 10
    while not agree() and time.monotonic() < end:
        time.sleep(0.05)
    assert agree(), (room_part(a, made["id"]), room_part(b, made["id"]))
