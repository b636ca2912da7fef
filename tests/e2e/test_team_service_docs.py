"""The README's section on running the team's service: its commands are ones `recall` parses,
and its Caddy site (not run here: no Caddy in CI) has the shape the service needs behind it: the
name `--allow-host` lets in, proxied to the port `recall serve` listens on. A real service
started as the section says answers a request as the proxy forwards it, a change from the
page at the public https origin included."""

from __future__ import annotations

import re
import shlex
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from history.cli import build_parser
from tests.helpers.readme import README, blocks
from tests.helpers.serving import recall_serve

SECTION = README.split("## Run the team's service", 1)[1].split("\n## ", 1)[0]


def section_blocks(language: str) -> list[str]:
    return [
        block.text for block in blocks() if block.language == language and block.text in SECTION
    ]


def recall_lines() -> list[list[str]]:
    lines = []
    for text in section_blocks("sh"):
        for line in text.splitlines():
            line = re.sub(r"\s{2,}#.*$", "", line).strip()
            if line.startswith("recall "):
                lines.append(shlex.split(line)[1:])
    return lines


def test_the_sections_commands_are_ones_recall_parses() -> None:
    lines = recall_lines()
    assert {words[0] for words in lines} >= {"migrate", "keys", "serve", "audit"}
    for words in lines:
        try:
            build_parser(words[0]).parse_args(words)
        except SystemExit:
            pytest.fail(f"`recall {' '.join(words)}` does not parse")


def test_the_caddy_site_proxies_the_allowed_name_to_the_served_port() -> None:
    (site,) = section_blocks("caddyfile")
    (serve,) = [words for words in recall_lines() if words[0] == "serve"]
    name = serve[serve.index("--allow-host") + 1]
    port = serve[serve.index("--port") + 1]
    assert re.match(rf"^{re.escape(name)} \{{\n", site)
    assert re.search(rf"^\treverse_proxy 127\.0\.0\.1:{port}$", site, flags=re.M)
    assert "header_up Host" not in site  # the Host must stay the name --allow-host lets in
    assert site.count("{") == site.count("}")
    assert "pg_dump" in SECTION and "restore" in SECTION


def test_the_service_answers_the_proxys_requests_and_the_public_pages_changes(
    tmp_path: Path,
) -> None:
    with recall_serve(tmp_path / "home", "--allow-host", "recall.example.com") as server:
        # What Caddy sends for `https://recall.example.com/api/code/sessions/s1` from its page.
        forwarded = {
            "Host": "recall.example.com",
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "203.0.113.9",
            "Origin": "https://recall.example.com",
        }
        request = urllib.request.Request(
            f"{server.base}/api/code/sessions/s1", headers=forwarded, method="DELETE"
        )
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=10)
        assert answer.value.code == 404  # let in, and nothing to forget: no 421, no 403
        elsewhere = {**forwarded, "Origin": "https://evil.example"}
        request = urllib.request.Request(
            f"{server.base}/api/code/sessions/s1", headers=elsewhere, method="DELETE"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
