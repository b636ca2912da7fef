"""The page reads an answer as the agent wrote it: Markdown rendered safely in headless Chromium,
edits shown as diffs, the search's words marked inside, a turn's work and its whole id, and all
of it within a phone's width. Against a real `recall serve`, one for the module."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from history import HistoryIndex
from tests.helpers.browser import Requests, screenshot_path
from tests.helpers.serving import Server, recall_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

PROJECT = "/work/clients/northwind-traders/services/authentication-gateway-service"
LONG_ID = "claude-code:c64cc478-5a1e-4f0b-9d7e-2b8c41f0e9aa:1b4951f2-dc07-4e3b-8f6a-77c0d2e4b5a1"
NOW = datetime.now(UTC).replace(microsecond=0)
FENCE = "```"

MARKDOWN = f"""# Plan for the login limit

Steps taken:

- read `middleware/limits.py`
- raise the limit
  1. a nested step

| setting | value |
| --- | --- |
| logins per minute | 10 |

{FENCE}python
def limit() -> int:
    return 10
{FENCE}

See [the docs](https://docs.example/limits), [mail](mailto:ops@example.org),
[one](javascript:alert(1)), [two](JaVaScRiPt:alert(2)), [three](data:text/html,hi),
[four](vbscript:msgbox), [five](java&#09;script:alert(5)).

<script>window.pwned = "script"</script>

<img src="/pixel-raw.png" onerror="window.pwned = 'img'">

![a chart of logins](/chart-md.png) and <b onmouseover="window.pwned = 'b'">bold?</b>
"""

EDITS = f"""The limit is now ten:

middleware/limits.py
{FENCE}python
<<<<<<< SEARCH
LIMIT = 5
=======
LIMIT = 10
>>>>>>> REPLACE
{FENCE}

settings.py
<<<<<<< SEARCH
DEBUG = True
=======
DEBUG = False
>>>>>>> REPLACE

--- a/README.md
+++ b/README.md
@@ -1,2 +1,2 @@
-Five logins a minute.
+Ten logins a minute.
"""

WORK = "\n".join(
    [
        "$ pytest -q tests/test_limits.py",
        "! FAILED tests/test_limits.py::test_ten - assert 5 == 10",
        "! 1 failed in 0.12s",
        f"~ {PROJECT}/middleware/limits.py",
        "+ LIMIT = 10",
        "~ notes.txt",
        "[… 3 more entries left out]",
    ]
)


def nested_lists(size: int) -> str:
    lines: list[str] = []
    depth = 0
    while sum(map(len, lines)) < size:
        lines.append("  " * depth + f"- level {depth}\n")
        depth = (depth + 1) % 400
    return "".join(lines)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("markdown-home")
    index = HistoryIndex.open(home / "history.db")
    for minutes, turn_id, asked, answered in [
        (0, LONG_ID, "How is the login limit set?", MARKDOWN),
        (2, "t-edits", "Raise the login limit to ten", EDITS),
    ]:
        index.record(
            turn_id=turn_id, session_id="conv-md", project=PROJECT, asked=asked,
            answered=answered, asked_at=NOW - timedelta(hours=1, minutes=-minutes),
        )  # fmt: skip
    index.close()
    with recall_serve(home) as running:
        yield running


@pytest.fixture
def seen(browser: Browser) -> Iterator[tuple[Page, Requests]]:
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, locale="en-US", timezone_id="UTC"
    )
    requests = Requests(context)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab, requests
    context.close()
    assert not errors, errors


@pytest.fixture
def page(seen: tuple[Page, Requests]) -> Page:
    return seen[0]


def conversation(server: Server, q: str = "") -> str:
    return f"{server.base}/?q={q}&open=conv-md&turn=t-edits"


def with_turns(page: Page, change: Any) -> None:
    """The conversation's API answer as the service gives it, each turn passed through `change`
    (for what this branch's service does not store: a turn's `work`, an answer over the bound)."""

    def fulfil(route: Route) -> None:
        body = route.fetch().json()
        body["turns"] = [change(dict(turn)) for turn in body["turns"]]
        route.fulfill(json=body)

    page.route("**/api/code/sessions/conv-md", fulfil)


def test_an_answer_is_rendered_as_markdown(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(conversation(server))
    answer = page.locator(f'.turn[data-turn="{LONG_ID}"] .markdown')
    expect(answer.locator("h1")).to_have_text("Plan for the login limit")
    expect(answer.locator("ul > li")).to_have_count(2)
    expect(answer.locator("ul ol > li")).to_have_text(["a nested step"])
    expect(answer.locator("li code").first).to_have_text("middleware/limits.py")
    expect(answer.locator("table th")).to_have_text(["setting", "value"])
    expect(answer.locator("table td")).to_have_text(["logins per minute", "10"])
    code = answer.locator("pre > code.language-python")
    expect(code).to_contain_text("def limit() -> int:")
    docs = answer.get_by_role("link", name="the docs")
    expect(docs).to_have_attribute("href", "https://docs.example/limits")
    assert "noopener" in (docs.get_attribute("rel") or "")
    mail = answer.get_by_role("link", name="mail")
    expect(mail).to_have_attribute("href", "mailto:ops@example.org")
    assert "`" not in answer.inner_text().split("See")[0]  # no Markdown left showing


def test_hostile_markdown_runs_nothing_fetches_nothing_and_links_nowhere_unsafe(
    seen: tuple[Page, Requests], server: Server
) -> None:
    from playwright.sync_api import expect

    page, requests = seen
    page.goto(conversation(server))
    answer = page.locator(f'.turn[data-turn="{LONG_ID}"] .markdown')
    expect(answer).to_contain_text('<script>window.pwned = "script"</script>')  # shown, inert
    expect(answer).to_contain_text("a chart of logins")
    page.mouse.move(0, 0)
    answer.get_by_text("bold?").hover()
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None
    assert answer.locator("script, img, b[onmouseover], [onerror]").count() == 0
    assert page.locator("img").count() == 0
    assert not [url for url in requests.urls if ".png" in url], requests.urls
    hrefs = answer.locator("a[href]").evaluate_all("links => links.map((a) => a.href)")
    assert hrefs and all(href.startswith(("https:", "http:", "mailto:")) for href in hrefs), hrefs
    for name in ("one", "two", "three", "four", "five"):
        assert answer.get_by_text(name, exact=True).get_attribute("href") is None, name


def test_edits_are_shown_as_diffs(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(conversation(server))
    answer = page.locator('.turn[data-turn="t-edits"] .markdown')
    diffs = answer.locator("pre.diff")
    expect(diffs).to_have_count(3)
    expect(diffs.nth(0).locator("code.language-python")).to_have_count(1)
    expect(diffs.nth(0).locator(".removed")).to_have_text(["- LIMIT = 5"])
    expect(diffs.nth(0).locator(".added")).to_have_text(["+ LIMIT = 10"])
    expect(diffs.nth(1).locator(".removed")).to_have_text(["- DEBUG = True"])  # unfenced
    expect(diffs.nth(1).locator(".added")).to_have_text(["+ DEBUG = False"])
    expect(diffs.nth(2).locator(".removed")).to_have_text(["-Five logins a minute."])
    expect(diffs.nth(2).locator(".added")).to_have_text(["+Ten logins a minute."])
    expect(diffs.nth(2).locator(".file")).to_have_count(2)
    expect(answer).not_to_contain_text("<<<<<<<")
    expect(answer.locator("h1, h2")).to_have_count(0)  # `=======` is no heading
    answer.screenshot(path=screenshot_path("page-diffs"))


def test_the_search_s_words_stay_marked_inside_the_rendered_answer(
    page: Page, server: Server
) -> None:
    from playwright.sync_api import expect

    page.goto(conversation(server, q="login+limit"))
    answer = page.locator(f'.turn[data-turn="{LONG_ID}"] .markdown')
    expect(answer.locator("h1 mark")).to_have_text(["login", "limit"])
    expect(answer.locator("li code mark")).to_have_text(["limits"])
    expect(answer.locator("td mark")).to_have_text(["logins"])
    expect(answer).not_to_contain_text("<mark>")
    edits = page.locator('.turn[data-turn="t-edits"] .markdown')
    expect(edits.locator(".diff .removed mark")).to_have_text(["LIMIT", "logins"])


def test_a_turn_s_work_is_shown_under_its_answer(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    with_turns(page, lambda turn: {**turn, "work": WORK if turn["turn_id"] == LONG_ID else ""})
    page.goto(conversation(server, q="limits"))
    work = page.locator(f'.turn[data-turn="{LONG_ID}"] ol.work')
    expect(work.locator(".command code")).to_have_text("$ pytest -q tests/test_limits.py")
    failure = work.locator(".failure")
    expect(failure).to_have_count(1)
    expect(failure.locator("b")).to_have_text("Failed:")
    expect(failure.locator("pre")).to_have_text(
        "FAILED tests/test_limits.py::test_ten - assert 5 == 10\n1 failed in 0.12s"
    )
    expect(work.locator(".edit-file")).to_have_text(["middleware/limits.py", "notes.txt"])
    expect(work.locator(".diff .added")).to_have_text(["+ LIMIT = 10"])
    expect(work.locator(".diff").nth(1)).to_be_hidden()  # an edit with no added lines
    expect(work.locator(".note")).to_have_text("[… 3 more entries left out]")
    expect(work.locator(".command mark")).to_have_text(["limits"])
    expect(page.locator('.turn[data-turn="t-edits"] .work')).to_have_count(0)  # empty: nothing


def test_a_turn_without_a_work_field_shows_no_work(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(conversation(server))
    expect(page.locator(".turn")).to_have_count(2)
    expect(page.locator(".work")).to_have_count(0)


def test_a_turn_shows_its_whole_id_to_copy(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(conversation(server))
    shown = page.locator(f'.turn[data-turn="{LONG_ID}"] .turn-id')
    expect(shown).to_have_text(f"Turn: {LONG_ID}")
    code = shown.locator("code")
    assert code.evaluate("node => getComputedStyle(node).userSelect") == "all"
    code.click()
    assert page.evaluate("getSelection().toString()") == LONG_ID
    page.goto(f"{server.base}/?q=login+limit")
    card = page.locator(f'.hit-card[data-turn="{LONG_ID}"]')
    expect(card.locator(".turn-id")).to_have_text(f"Turn: {LONG_ID}")


@pytest.mark.parametrize(
    ("hostile", "shown_as"),
    [
        (nested_lists(1_000_000), ".plain"),  # past the bound: as text
        (nested_lists(99_000), ".markdown li"),
        ("> " * 20_000 + "deep\n", ".plain"),  # too deep for the parser: as text
        ("- " * 45_000 + "x\n", ".plain"),  # too deep to be worth parsing: as text
        (("- " * 8 + "x\n") * 3_550, ".plain"),  # too many elements to lay out: as text
        ((MARKDOWN + "\n") * 100, ".markdown li"),  # as long as an answer is kept, all rendered
    ],
    ids=["nested-lists-1MB", "nested-lists-99kB", "quotes", "list-markers", "8-deep-lines", "64kB"],
)
def test_a_huge_or_deep_answer_renders_without_hanging(
    page: Page, server: Server, hostile: str, shown_as: str
) -> None:
    from playwright.sync_api import expect

    with_turns(page, lambda turn: {**turn, "answered": hostile})
    started = time.monotonic()
    page.goto(conversation(server, q="level"))
    answer = page.locator(".turn .answered").first
    expect(answer).to_be_visible(timeout=60_000)
    elapsed = time.monotonic() - started
    assert elapsed < 30, elapsed
    assert page.evaluate("1 + 1") == 2  # the page still answers
    assert len(answer.inner_text()) > 1000
    assert page.locator(f".turn .answered{shown_as}").count() > 0
    print(f"{len(hostile):,} characters shown in {elapsed:.1f} s")


def test_a_360_pixel_screen_scrolls_only_down(browser: Browser, server: Server) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="en-US", timezone_id="UTC"
    )
    phone = context.new_page()
    sideways = "document.scrollingElement.scrollWidth <= innerWidth"
    phone.goto(f"{server.base}/?q=login+limit")
    expect(phone.locator(f'#project option[value="{PROJECT}"]')).to_have_count(1)
    expect(phone.locator(".hit-card")).to_have_count(2)
    assert phone.evaluate(sideways), phone.evaluate("document.scrollingElement.scrollWidth")
    box = phone.locator("#project").bounding_box()
    assert box and box["x"] + box["width"] <= 360, box  # the "Where" picker on the screen
    with_turns(phone, lambda turn: {**turn, "work": WORK})
    phone.goto(conversation(server, q="login+limit"))
    expect(phone.locator(".turn .markdown table")).to_have_count(1)
    assert phone.evaluate(sideways), phone.evaluate("document.scrollingElement.scrollWidth")
    phone.locator(f'.turn[data-turn="{LONG_ID}"]').evaluate("turn => turn.scrollIntoView()")
    phone.screenshot(path=screenshot_path("page-360"))
    context.close()


def test_the_page_loads_its_renderer_from_the_service_only(server: Server) -> None:
    import httpx

    for name in ("markdown.js", "vendor/marked.umd.js", "vendor/purify.min.js"):
        answer = httpx.get(f"{server.base}/page/{name}")
        assert answer.status_code == 200, name
        assert answer.headers["content-type"].startswith("text/javascript"), name
    html = httpx.get(server.base).text
    assert json.dumps("/page/vendor/purify.min.js")[1:-1] in html
