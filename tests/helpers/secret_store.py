"""Recording one form of the secret corpus as a turn, as the file and PostgreSQL tests do."""

from __future__ import annotations

from history import HistoryIndex
from tests.helpers.secret_corpus import Form


def record_form(index: HistoryIndex, number: int, form: Form) -> bool:
    return index.record(
        turn_id=f"turn-{number} {form.text}",
        session_id=f"session-{number} {form.text}",
        project=f"/work/{form.text}",
        asked=f"asked about {form.text} and the deploy",
        answered=f"answered: {form.text}",
        files=[f"src/{form.text}.py", "src/ordinary.py"],
        edited=[f"config/{form.text}.env"],
        tools=[f"shell {form.text}"],
    )
