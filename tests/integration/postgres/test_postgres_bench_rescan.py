"""bench.pg_rescan: the planted secrets are masked, every writing step is timed, and none of the
secrets is left in the files of `turns` once the scrub has run."""

from __future__ import annotations

import json

import pytest

from bench import pg_load, pg_rescan
from bench.corpus import default_end


def test_the_planted_secrets_are_masked_and_gone_from_the_files(
    fresh_postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pg_load.load(fresh_postgres_url, 300, seed=7, end=default_end(), mix="standard")
    pg_rescan.main(["--url", fresh_postgres_url, "--every", "50"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    measured = {(line["metric"], line["impl"]): line["value"] for line in lines}
    assert measured[("planted", "recall")] == measured[("masked", "recall")] == 6
    assert measured[("writes", "recall")] >= 1
    assert measured[("rescan", "ratio")] > 0  # beside the baseline, in the same run
    assert measured[("secrets left in the files", "recall")] == 0
