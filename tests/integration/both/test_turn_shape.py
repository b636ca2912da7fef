"""One turn shape: every layer takes its fields from `history.domain.Turn`, so a new field is one
edit there (and its column and revision). The importers' turn is a `Turn`; `prepare`, the rows,
the views, the spool and the HTTP models build theirs from its fields; and a turn with every field
set comes back whole through each of them, on SQLite and PostgreSQL."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex, Hit, Turn
from history.api import create_app
from history.api.models import HitOut, TurnIn, TurnOut
from history.domain import TURN_FIELDS, turn_field_type
from history.importers.base import ImportedTurn, TurnDraft
from history.prepare import prepare
from history.store import rows
from history.store.models import TURN_COLUMNS
from history.store.models import Turn as TurnRow
from history.store.postgres import bulk
from history.store.sqlite.forgetting import spool
from history.store.views import turn_fields
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

FIELDS = list(TURN_FIELDS)
# A value for a field of each type, the field's name in it: a field a layer drops or swaps with
# another comes back different.
_BY_TYPE: dict[object, Callable[[str], object]] = {
    str: lambda name: f"{name} zanzibar",
    tuple[str, ...]: lambda name: (f"src/{name}.py", f"docs/{name}.md"),
    bool: lambda name: True,
    datetime: lambda name: datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC),
}
# Where a value must have a form of its own (a project is a workspace path).
_NAMED = {"project": "/w/shape", "turn_id": "shape-turn-1", "session_id": "shape-conv"}
_VALUES: dict[str, Any] = {
    name: _NAMED.get(name) or _BY_TYPE[turn_field_type(name)](name) for name in FIELDS
}
SAID = Turn(**_VALUES)
# What is stored of it: the files include the edited ones.
STORED = replace(SAID, files=SAID.files + SAID.edited)


def test_every_field_of_the_turn_is_set_to_something_other_than_its_default() -> None:
    for item in fields(Turn):
        assert getattr(SAID, item.name) not in (item.default, "", (), False, None), item.name


def test_every_layer_takes_the_turns_fields_from_the_one_dataclass() -> None:
    assert ImportedTurn is Turn and issubclass(Hit, Turn)
    assert [column.key for column in TURN_COLUMNS] == FIELDS
    assert set(FIELDS) <= set(TurnRow.__table__.columns.keys())
    assert list(rows.row_values(SAID)) == FIELDS
    assert list(turn_fields(tuple(rows.row_values(SAID).values()))) == FIELDS
    assert list(json.loads(spool._encoded(SAID))) == FIELDS
    assert bulk._NAMES == FIELDS
    assert list(TurnOut.model_fields) == FIELDS
    assert list(TurnIn.model_fields) == FIELDS
    assert list(HitOut.model_fields) == [*FIELDS, "score", "asked_excerpt", "answered_excerpt"]
    for method in (HistoryIndex.record, HistoryIndex.record_outcome):
        keywords = inspect.signature(method).parameters
        assert set(keywords) - {"self"} == set(FIELDS), method.__name__


def test_an_importers_draft_finishes_as_a_turn() -> None:
    draft = TurnDraft("t", "s", "/w/shape", "asked", SAID.asked_at)
    draft.say("answered")
    draft.touch("/w/shape/src/a.py", edit=True)
    draft.run_shell("make test")
    finished = draft.finish()
    assert isinstance(finished, Turn)
    assert finished.edited == ("src/a.py",) and finished.work.startswith("$ make test")


def test_prepare_keeps_every_field() -> None:
    assert prepare(SAID) == STORED


def test_a_turn_comes_back_whole_from_its_row_and_from_the_spool() -> None:
    row = tuple(rows.row_values(STORED).values())
    assert Turn(**turn_fields(row)) == STORED
    assert rows.hit(row, 0.5) == Hit(**asdict(STORED), score=0.5)
    assert spool._decoded(spool._encoded(STORED)) == STORED


def test_a_turn_spooled_before_a_field_was_added_takes_the_fields_default() -> None:
    spooled = json.loads(spool._encoded(STORED))
    del spooled["work"]
    assert spool._decoded(json.dumps(spooled)) == replace(STORED, work="")


def _said_as_keywords(turn: Turn) -> dict[str, Any]:
    return {name: getattr(turn, name) for name in FIELDS}


def _whole(turn: Turn) -> Turn:
    return Turn(**_said_as_keywords(turn))


def test_a_recorded_turn_comes_back_whole_from_every_view(index: HistoryIndex) -> None:
    assert index.record(**_said_as_keywords(SAID))
    assert index.turn(SAID.turn_id) == STORED
    assert index.conversation(SAID.session_id) == [STORED]
    (hit,) = index.search("zanzibar")
    assert _whole(hit) == STORED


def test_record_many_stores_every_field_of_a_turn_and_of_a_callers_own_object(
    index: HistoryIndex,
) -> None:
    class Own:  # a caller's turn type: any object with the fields
        def __init__(self, **values: Any) -> None:
            self.__dict__.update(values)

        def __getattr__(self, name: str) -> Any:  # the fields, as the type checker sees them
            raise AttributeError(name)

    other = replace(SAID, turn_id="shape-turn-2")
    assert index.record_many([SAID, Own(**_said_as_keywords(other))]).new == 2
    assert index.turn(SAID.turn_id) == STORED
    assert index.turn(other.turn_id) == replace(STORED, turn_id=other.turn_id)


@pytest.fixture
def client(index: HistoryIndex) -> Iterator[TestClient]:
    with TestClient(create_app(index), base_url=LOOPBACK) as test_client:
        yield test_client


def _json(turn: Turn) -> dict[str, Any]:
    return TurnOut(**asdict(turn)).model_dump(mode="json")


def test_the_http_service_takes_and_gives_back_every_field(client: TestClient) -> None:
    sent = _json(SAID)
    assert client.post("/api/code/turns", json=sent).status_code == 201
    assert client.get(f"/api/code/turns/{SAID.turn_id}").json() == _json(STORED)
    (hit,) = client.get("/api/code/history", params={"q": "zanzibar"}).json()["hits"]
    assert {name: hit[name] for name in FIELDS} == _json(STORED)
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert list(schemas["TurnOut"]["properties"]) == FIELDS
    assert set(schemas["TurnIn"]["properties"]) == set(FIELDS)


def test_the_http_models_keep_the_schema_they_had_before_they_were_built_from_the_turn(
    tmp_path: Path,
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    schemas = create_app(index).openapi()["components"]["schemas"]
    index.close()
    turn_in, turn_out = schemas["TurnIn"], schemas["TurnOut"]
    assert turn_in["additionalProperties"] is False
    none = "none given"  # a required field's, and asked_at's (null)
    defaults = {name: shown.get("default", none) for name, shown in turn_in["properties"].items()}
    # As they were when the model was written out (a field added since is left to the rest).
    assert {
        **dict.fromkeys(
            ["turn_id", "session_id", "project", "asked_at", "asked", "answered"], none
        ),
        "tainted": False,
        "files": [],
        "edited": [],
        "tools": [],
        "work": "",
    }.items() <= defaults.items()
    assert turn_in["required"] == ["turn_id", "session_id", "project", "asked", "answered"]
    assert turn_in["properties"]["turn_id"]["maxLength"] == 1_000
    assert turn_in["properties"]["project"]["description"] == "absolute workspace path, or ~/…"
    assert turn_out["required"] == FIELDS
    assert turn_out["properties"]["files"] == {
        "items": {"type": "string"},
        "title": "Files",
        "type": "array",
    }
    assert turn_out["properties"]["asked_at"]["format"] == "date-time"


def test_a_turn_holding_a_lone_surrogate_is_recorded_with_a_replacement_character(
    index: HistoryIndex,
) -> None:
    # Regression: redaction raised on such a text (an emoji cut in half in a transcript's JSON),
    # and the whole turn was not recorded.
    cut = chr(0xD83D)
    long_answer = f"cut {cut} here " + "zanzibar " * 600  # the long texts' redaction too
    assert index.record(
        turn_id="cut-1",
        session_id="cut",
        project="/w/cut",
        asked=f"why {cut} zanzibar",
        answered=long_answer,
        work=f"ran {cut}",
    )
    turn = index.turn("cut-1")
    assert turn is not None
    # Compared as ascii(): a failure's message holding a lone surrogate would stop the xdist
    # worker that sends it.
    assert ascii((turn.asked, turn.work)) == ascii(("why \ufffd zanzibar", "ran \ufffd"))
    assert ascii(turn.answered) == ascii(long_answer.replace(cut, "\ufffd"))
    assert [hit.turn_id for hit in index.search("zanzibar")] == ["cut-1"]
