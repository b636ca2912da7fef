"""The page at `/`, used in headless Chromium as a person would: against a real `recall serve`
on 127.0.0.1, one server and one browser for the module, a fresh tab for each test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
import pytest

from history import HistoryIndex
from tests.helpers.browser import Requests, screenshot_path
from tests.helpers.serving import Server, recall_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

SHOP, BLOG, FILLER, GONE = "/work/shop", "/work/blog", "/work/filler", "/work/gone"
CANARY = "zebracanaryqu" + "xvbtwelkjhprmnd"  # long: FTS5 may keep only a term's tail
# Noon UTC of today, shown in UTC: the page counts calendar days, so "14 days ago" must not
# depend on how close to midnight the suite runs.
NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def seed(home: Path) -> None:
    index = HistoryIndex.open(home / "history.db")

    def days_ago(days: int, minutes: int = 0) -> datetime:
        return NOW - timedelta(days=days, minutes=-minutes)

    index.record(
        turn_id="t-ask", session_id="conv-login", project=SHOP, asked_at=days_ago(14),
        asked="Why do people get locked out after a few tries?",
        answered="The lockout comes from the middleware; see the next turn.",
    )  # fmt: skip
    index.record(
        turn_id="t-rate", session_id="conv-login", project=SHOP, asked_at=days_ago(14, 2),
        asked="Where is the login rate limit configured?",
        answered="In middleware/limits.py: five logins a minute per address, then a 429.",
        files=[f"{SHOP}/middleware/limits.py", f"{SHOP}/README.md"],
        edited=[f"{SHOP}/middleware/limits.py"],
    )  # fmt: skip
    index.record(
        turn_id="t-raise", session_id="conv-login", project=SHOP, asked_at=days_ago(14, 4),
        asked="Raise it to ten.", answered="Done: ten a minute now.",
        edited=[f"{SHOP}/middleware/limits.py"],
    )  # fmt: skip
    index.record(
        turn_id="t-fetch", session_id="conv-blog", project=BLOG, asked_at=days_ago(2),
        asked="Fetch the status page and summarise it",
        answered="The status page says the login rate went down.", tainted=True,
        files=["https://status.example/"],
    )  # fmt: skip
    index.record(
        turn_id="t-doomed", session_id="conv-doomed", project=SHOP, asked_at=days_ago(1),
        asked=f"Plan the migration {CANARY}", answered=f"Noted the plan {CANARY}.",
    )  # fmt: skip
    for n in range(25):  # more than a page of conversations
        index.record(
            turn_id=f"t-filler-{n}", session_id=f"conv-filler-{n:02}", project=FILLER,
            asked=f"Filler question {n} about parsers", answered="Fine.",
            asked_at=days_ago(40 + n),
        )  # fmt: skip
    for n in range(2):
        index.record(
            turn_id=f"t-gone-{n}", session_id=f"conv-gone-{n}", project=GONE,
            asked=f"Old project question {n}", answered="Old answer.", asked_at=days_ago(60),
        )  # fmt: skip
    index.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("page-home")
    seed(home)
    with recall_serve(home) as running:
        running.home = home  # type: ignore[attr-defined]
        yield running


REQUESTS: list[str] = []


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, locale="en-US", timezone_id="UTC"
    )
    seen = Requests(context)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    REQUESTS.extend(seen.urls)
    assert not errors, errors


def search_for(page: Page, words: str) -> None:
    from playwright.sync_api import expect

    page.locator("#q").fill(words)
    expect(page.locator("#list-heading")).to_have_text("Turns that match")


def test_a_search_shows_the_turn_first_and_opens_its_conversation_with_the_hit_marked(
    page: Page, server: Server
) -> None:
    from playwright.sync_api import expect

    page.goto(server.base)
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.type("login rate limit")  # results as they are typed
    first = page.locator("#results .hit-card").first
    expect(first).to_have_attribute("data-turn", "t-rate")
    expect(page).to_have_url(re.compile(r"\?q=login\+rate\+limit$"))
    expect(first.locator("mark")).to_have_text(["login", "rate", "limit", "limits", "logins"])
    expect(first.locator(".meta")).to_contain_text("(14 days ago)")
    expect(first.locator(".project")).to_have_text(f"Project: {SHOP}")  # searched everywhere
    expect(first.locator(".conversation-id")).to_have_text("Conversation: conv-login")
    expect(first.locator(".files.edited")).to_have_text("Edited:middleware/limits.py")
    expect(first.locator(".files.read")).to_have_text("Read:README.md")  # edited not repeated
    expect(first.locator(".taint")).to_have_count(0)
    tainted = page.locator('.hit-card[data-turn="t-fetch"]')
    expect(tainted.locator(".taint")).to_contain_text("untrusted content")
    page.screenshot(path=screenshot_path("page-search"))

    first.locator("a").click()
    expect(page.locator("#conversation-view")).to_be_visible()
    expect(page).to_have_url(re.compile(r"open=conv-login&turn=t-rate"))
    hit = page.locator(".turn.hit")
    expect(hit).to_have_attribute("data-turn", "t-rate")
    expect(hit).to_be_focused()
    expect(hit).to_be_in_viewport()
    expect(hit.locator("mark").first).to_have_text("login")
    expect(page.locator(".turn")).to_have_count(3)  # the whole conversation, in order
    expect(page.locator(".turn pre.asked").first).to_have_text(
        "Why do people get locked out after a few tries?"
    )
    page.screenshot(path=screenshot_path("page-conversation"))

    page.go_back()  # the browser's back returns to the same results
    expect(page.locator("#list-view")).to_be_visible()
    expect(page.locator("#q")).to_have_value("login rate limit")
    expect(page.locator("#results .hit-card").first).to_have_attribute("data-turn", "t-rate")
    page.go_forward()  # and a URL opens the conversation on its own
    expect(page.locator(".turn.hit")).to_have_attribute("data-turn", "t-rate")


def test_a_hit_that_search_by_meaning_brought_says_so(page: Page, server: Server) -> None:
    """The page marks the hits the service's answer lists in `by_meaning`. Search by meaning
    runs only where its extra is installed, so the answer is given that list on its way here
    (the hits are the service's own); test_meaning.py checks the service fills it."""
    from playwright.sync_api import Route, expect

    def marked(route: Route) -> None:
        answer = route.fetch()
        body = answer.json()
        body["by_meaning"] = [hit["turn_id"] for hit in body["hits"][1:2]]
        route.fulfill(response=answer, json=body)

    page.route("**/api/code/history?*", marked)
    page.goto(f"{server.base}/?q=login")
    cards = page.locator(".hit-card")
    expect(cards.nth(1).locator(".by-meaning")).to_have_text(
        "Found by meaning: not among the best matches of the words."
    )
    expect(cards.nth(0).locator(".by-meaning")).to_have_count(0)


def test_the_nothings_read_differently(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    nothing = page.locator("#nothing")
    page.goto(f"{server.base}/?q=kangaroo")
    expect(nothing).to_contain_text("No turn in any project matches “kangaroo”")
    page.goto(f"{server.base}/?q=kangaroo&project={SHOP}")
    expect(nothing).to_contain_text(f"No turn in the project {SHOP} matches")
    nothing.get_by_role("button", name="Search every project").click()
    expect(page).to_have_url(re.compile(r"/\?q=kangaroo$"))
    page.goto(f"{server.base}/?q=kangaroo&days=7")
    expect(nothing).to_contain_text("from the last 7 days matches “kangaroo”")
    nothing.get_by_role("button", name="Search all of the history").click()
    expect(nothing).to_contain_text("No turn in any project matches")
    page.goto(f"{server.base}/?q=kangaroo&project=/work/never")
    expect(nothing).to_contain_text("Nothing is recorded in the project /work/never")
    page.goto(f"{server.base}/?q=the")
    expect(nothing).to_contain_text("no word to look for")


def test_an_empty_box_browses_recent_conversations_a_page_at_a_time(
    page: Page, server: Server
) -> None:
    from playwright.sync_api import expect

    page.goto(server.base)
    expect(page.locator("#list-heading")).to_have_text("Recent conversations")
    cards = page.locator("#results .conversation-card")
    expect(cards).to_have_count(20)
    expect(cards.first).to_have_attribute("data-session", "conv-doomed")  # the latest first
    page.locator("#more").click()
    expect(cards).to_have_count(30)  # every conversation: the last page
    expect(page.locator("#more")).to_be_hidden()
    sessions = [card.get_attribute("data-session") for card in cards.all()]
    assert len(set(sessions)) == len(sessions)
    page.select_option("#project", FILLER)
    expect(cards).to_have_count(20)
    expect(page.locator("#results .project")).to_have_count(0)  # the scope names it


def test_keyboard_alone_searches_opens_goes_back_and_forgets(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server.base}/?project={FILLER}&open=conv-filler-00")
    expect(page.locator("#conversation-heading")).to_be_focused()
    page.keyboard.press("/")  # from anywhere
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.type("filler question 3")
    page.keyboard.press("Enter")
    expect(page.locator("#results .hit-card").first).to_have_attribute("data-turn", "t-filler-3")
    page.keyboard.press("ArrowDown")
    first = page.locator("#results a.open").first
    expect(first).to_be_focused()
    ring = first.evaluate("link => getComputedStyle(link.closest('.card')).outlineStyle")
    assert ring == "solid"  # the focused result shows it
    page.keyboard.press("ArrowDown")
    expect(page.locator("#results a.open").nth(1)).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(page.locator(".turn.hit")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#list-view")).to_be_visible()
    expect(page).to_have_url(re.compile(r"q=filler\+question\+3"))
    expect(first).to_be_focused()  # back where it was

    page.keyboard.press("Enter")
    expect(page.locator("#conversation-view")).to_be_visible()
    forget = page.locator("#forget-conversation")
    forget.focus()  # where Tab from the back button leads
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#back")).to_be_focused()
    page.keyboard.press("Tab")
    expect(forget).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-no")).to_be_focused()  # keeping is the default
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("is forgotten. Turns deleted: 1.")
    assert not any(r["turn_id"] == "t-filler-3" for r in _search(server, "filler question 3"))


def _search(server: Server, words: str) -> list[dict[str, object]]:
    found = httpx.get(f"{server.base}/api/code/history", params={"q": words, "k": 10}).json()
    return list(found["hits"])


def _file_bytes(home: Path) -> bytes:
    return b"".join(path.read_bytes() for path in home.glob("history.db*"))


def test_forgetting_a_conversation_asks_naming_it_then_it_is_gone_everywhere(
    page: Page, server: Server
) -> None:
    from playwright.sync_api import expect

    home: Path = server.home  # type: ignore[attr-defined]
    assert CANARY[-8:].encode() in _file_bytes(home)  # the check can see it while it is there
    page.goto(server.base)
    search_for(page, CANARY)
    page.locator("#results a.open").first.click()
    page.locator("#forget-conversation").click()
    question = page.locator("#confirm-text")
    expect(question).to_have_text(
        f"Forget the conversation “Plan the migration {CANARY}” in {SHOP}? Its turns (1) are "
        "deleted for good."
    )
    page.locator("#confirm-no").click()  # kept: nothing happens
    expect(page.locator("#conversation-view")).to_be_visible()
    assert _search(server, CANARY)

    page.locator("#forget-conversation").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#status")).to_have_text(
        f"The conversation “Plan the migration {CANARY}” is forgotten. Turns deleted: 1."
    )
    expect(page.locator("#list-view")).to_be_visible()  # back to the results, now empty
    expect(page.locator("#nothing")).to_contain_text("No turn in any project matches")
    assert _search(server, CANARY) == []
    raw = _file_bytes(home)
    assert CANARY.encode() not in raw and CANARY[-8:].encode() not in raw
    page.goto(server.base)  # and from the recent conversations
    expect(page.locator("#results .conversation-card").first).not_to_have_attribute(
        "data-session", "conv-doomed"
    )
    expect(page.locator('[data-session="conv-doomed"]')).to_have_count(0)
    page.goto(f"{server.base}/?open=conv-doomed&turn=t-doomed")  # a link to it, kept from before
    expect(page.locator("#status")).to_have_text(
        "This conversation is not in the history: it may have been forgotten."
    )
    expect(page).to_have_url(f"{server.base}/")


def test_forgetting_a_project_names_it_and_its_counts(page: Page, server: Server) -> None:
    from playwright.sync_api import expect

    page.goto(server.base)
    page.select_option("#project", GONE)
    expect(page.locator("#results .conversation-card")).to_have_count(2)
    page.locator("#forget-project").click()
    expect(page.locator("#confirm-text")).to_have_text(
        f"Forget every conversation of the project {GONE}? Conversations: 2; turns: 2. "
        "They are deleted for good."
    )
    page.locator("#confirm-yes").click()
    expect(page.locator("#status")).to_have_text(
        f"The project {GONE} is forgotten. Conversations deleted: 2; turns: 2."
    )
    expect(page.locator("#project")).to_have_value("")
    expect(page.locator(f'#project option[value="{GONE}"]')).to_have_count(0)
    expect(page.locator(".conversation-card .project", has_text=GONE)).to_have_count(0)
    assert not [hit for hit in _search(server, "old project question") if hit["project"] == GONE]


def test_the_page_speaks_the_language_picked_else_the_browser_s(
    browser: Browser, server: Server
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(
        locale="fr-FR", timezone_id="UTC", extra_http_headers={"Accept-Language": "fr"}
    )
    seen = Requests(context)
    french = context.new_page()
    french.goto(f"{server.base}/?q=login+rate+limit")
    expect(french.locator("html")).to_have_attribute("lang", "fr")
    expect(french.locator("#heading")).to_have_text("L'historique de votre agent")
    first = french.locator("#results .hit-card").first
    expect(first.locator(".meta")).to_contain_text("(il y a 14 jours)")
    expect(first.locator(".files.edited")).to_have_text("Modifiés :middleware/limits.py")
    french.select_option("#language", "ja")  # the picker wins over the browser's language
    expect(french.locator("html")).to_have_attribute("lang", "ja")
    expect(french.locator("#list-heading")).to_have_text("一致したターン")
    expect(french).to_have_url(re.compile(r"q=login\+rate\+limit&lang=ja$"))
    expect(french.locator("#results .hit-card").first).to_have_attribute("data-turn", "t-rate")
    french.screenshot(path=screenshot_path("page-japanese"))
    context.close()
    REQUESTS.extend(seen.urls)


def test_a_phone_sized_window_in_dark_mode(browser: Browser, server: Server) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        color_scheme="dark",
        locale="en-US",
        timezone_id="UTC",
    )
    seen = Requests(context)
    phone = context.new_page()
    phone.goto(f"{server.base}/?q=login+rate+limit&open=conv-login&turn=t-rate")
    expect(phone.locator(".turn.hit")).to_be_in_viewport()
    assert phone.evaluate("document.documentElement.scrollWidth <= innerWidth")  # no sideways
    background = phone.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(23, 24, 26)"  # the dark palette
    phone.screenshot(path=screenshot_path("page-phone-dark"))
    context.close()
    REQUESTS.extend(seen.urls)


def test_every_request_the_page_made_went_to_the_service(browser: Browser, server: Server) -> None:
    from playwright.sync_api import expect

    answer = httpx.get(server.base)
    assert "connect-src 'self'" in answer.headers["content-security-policy"]
    context = browser.new_context(locale="en-US", timezone_id="UTC")
    seen = Requests(context)
    tab = context.new_page()
    tab.goto(f"{server.base}/?q=login")
    tab.locator("#results a.open").first.click()
    expect(tab.locator(".turn.hit")).to_be_visible()
    context.close()
    made = [*REQUESTS, *seen.urls]  # this tab's and every tab's of the tests above
    assert {urlsplit(url).netloc for url in made} == {urlsplit(server.base).netloc}, made
    assert urlsplit(server.base).hostname == "127.0.0.1"
    assert len(seen.urls) >= 5, seen.urls  # the page, its two files and its API calls
    print(f"{len(made)} requests, all to {server.base}")
