"""The page's file search, in headless Chromium against a real `recall serve`: "Files" beside
"Turns" gives the turns that edited a file (newest first, with the lines they added) and, for
`PATH:LINE`, the turn that wrote each line or that none did, as `GET /api/code/files` answers;
a turn shown whole links each file it edited to that search. On a git repository built here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from history import HistoryIndex
from tests.helpers.browser import screenshot_path
from tests.helpers.git_repo import LOGIN, commit, edit, git
from tests.helpers.serving import Server, recall_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

STRICT = "    return check(user, strict=True)"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("files") / "shop"


@pytest.fixture(scope="module")
def server(shop: Path) -> Iterator[Server]:
    """t1 wrote login, t2 made it strict (a later commit), r1 only read it; the file's last line
    is a person's, written after every turn."""
    from tests.helpers.git_repo import at

    home = shop.parent / "home"
    shop.mkdir()
    git(shop, "init", "-q")
    index = HistoryIndex.open(home / "history.db")
    commit(shop, {LOGIN: "# shop auth\n"}, at(5), "start")
    edit(index, "t1", shop, ["def login(user):", "    return check(user)"], 3, "Add login")
    commit(shop, {LOGIN: "# shop auth\ndef login(user):\n    return check(user)\n"}, at(2.9), "1")
    edit(index, "t2", shop, ["def login(user):", STRICT], 2, "Make login strict")
    text = f"# shop auth\ndef login(user):\n{STRICT}\n"
    commit(shop, {LOGIN: text}, at(1.9), "2")
    commit(shop, {LOGIN: text + "DEBUG = False\n"}, at(1), "3")
    index.record(
        turn_id="r1", session_id="conv-r1", project=str(shop), asked="Explain login",
        answered="it checks", files=[LOGIN], asked_at=at(0.5),
    )  # fmt: skip
    index.close()
    with recall_serve(home) as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, locale="en-US", timezone_id="UTC"
    )
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


def files_url(server: Server, shop: Path, q: str) -> str:
    return f"{server.base}/?kind=files&q={quote(q)}&project={quote(str(shop))}"


def test_files_beside_turns_lists_the_turns_that_edited_a_file_newest_first(
    page: Page, server: Server, shop: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(server.base)
    page.get_by_role("radio", name="Files").check()
    page.locator("#project").select_option(str(shop))
    page.locator("#q").fill(LOGIN)
    expect(page.locator("#list-heading")).to_have_text(f"Turns that edited {LOGIN}")
    cards = page.locator("#results .file-card")
    expect(cards).to_have_count(2)  # r1 only read it
    assert [cards.nth(n).get_attribute("data-turn") for n in range(2)] == ["t2", "t1"]
    expect(cards.nth(0).locator("pre.added")).to_have_text(f"+ def login(user):\n+ {STRICT}")
    expect(cards.nth(1)).to_contain_text("Add login")
    assert "kind=files" in page.url
    cards.nth(1).locator("a.open").click()  # the card opens its turn in its conversation
    expect(page.locator("#turns .turn.hit")).to_have_attribute("data-turn", "t1")


def test_a_line_search_names_the_turn_that_wrote_each_line_or_that_none_did(
    page: Page, server: Server, shop: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(files_url(server, shop, f"{LOGIN}:1-3"))
    expect(page.locator("#list-heading")).to_have_text(f"The turns that wrote lines 1-3 of {LOGIN}")
    lines = page.locator("#results .line-card")
    expect(lines).to_have_count(3)
    expect(lines.nth(0)).to_contain_text("# shop auth")  # committed before any turn
    expect(lines.nth(0)).to_contain_text("No recorded turn wrote this line.")
    assert lines.nth(0).get_attribute("data-turn") is None
    expect(lines.nth(2)).to_have_attribute("data-turn", "t2")
    expect(lines.nth(2)).to_contain_text(STRICT.strip())
    expect(lines.nth(2).locator(".how")).to_have_text(
        "How it was matched: the same text, the same commit"
    )


def test_a_file_no_turn_edited_says_so(page: Page, server: Server, shop: Path) -> None:
    from playwright.sync_api import expect

    page.goto(files_url(server, shop, "src/shop/cart.py"))
    expect(page.locator("#nothing")).to_contain_text("No recorded turn edited src/shop/cart.py.")


def test_a_turn_shown_whole_links_each_file_it_edited_to_its_blame(
    page: Page, server: Server, shop: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server.base}/?open=conv-t1&turn=t1")
    link = page.locator('#turns .turn[data-turn="t1"] .files.edited a.blame')
    expect(link).to_have_text(LOGIN)
    link.click()
    expect(page.locator("#kind-files")).to_be_checked()
    expect(page.locator("#q")).to_have_value(LOGIN)
    expect(page.locator("#results .file-card")).to_have_count(2)
    page.go_back()  # back to the conversation it came from
    expect(page.locator("#turns .turn.hit")).to_have_attribute("data-turn", "t1")


def test_a_file_and_its_lines_fit_a_360_pixel_screen(
    browser: Browser, server: Server, shop: Path
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="en-US", timezone_id="UTC"
    )
    phone = context.new_page()
    sideways = "document.scrollingElement.scrollWidth <= innerWidth"
    for q, cards in ((LOGIN, ".file-card"), (f"{LOGIN}:1-3", ".line-card")):
        phone.goto(files_url(server, shop, q))
        expect(phone.locator(f"#results {cards}").first).to_be_visible()
        assert phone.evaluate(sideways), phone.evaluate("document.scrollingElement.scrollWidth")
    phone.screenshot(path=screenshot_path("page-files-360"))
    context.close()


def test_a_late_project_list_for_an_older_view_keeps_the_project_chosen_since(
    page: Page, server: Server, shop: Path
) -> None:
    """Regression: on a slow service, the project list that an earlier view had asked for came
    back after a project was chosen, and that view set the choice back to every project; the
    file search then asked without a project and failed."""
    from playwright.sync_api import Route, expect

    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/code/projects", hold)
    page.goto(server.base)
    page.get_by_role("radio", name="Files").check()  # this view asks for the list too
    for _ in range(500):  # 10 s at most
        if len(held) == 2:
            break
        page.wait_for_timeout(20)
    assert len(held) == 2, "the first view and the Files view each ask for the project list"
    held[0].continue_()
    page.locator("#project").select_option(str(shop))
    with page.expect_response("**/api/code/projects"):
        held[1].continue_()
    page.unroute("**/api/code/projects")
    page.locator("#q").fill(LOGIN)
    expect(page.locator("#results .file-card")).to_have_count(2)
    expect(page.locator("#project")).to_have_value(str(shop))
