"""In headless Chromium, against a real `recall serve` on 127.0.0.1: a page of another origin
(a second tiny server on another port) and a page whose name was rebound to 127.0.0.1 cannot
plant or forget anything, while the service's own page still searches and forgets."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from history import HistoryIndex
from tests.helpers.browser import CHROMIUM, require_chromium
from tests.helpers.serving import Server, recall_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser

VICTIM = "conv-victim"
WORD = "pelicanmarmalade"
REBOUND = "attacker.test"
# The other site's page: it tries every way a page has to change the history, and to read it.
ATTACK = """<!doctype html><title>elsewhere</title><script>
async function attack(base) {
  const turn = JSON.stringify({turn_id: "t-planted", session_id: "conv-planted",
    project: "/work/shop", asked: "planted by another site", answered: "planted"});
  const tries = {
    forget: [base + "/api/code/sessions/conv-victim", {method: "DELETE"}],
    forget_project: [base + "/api/code/projects?project=/work/shop", {method: "DELETE"}],
    plant: [base + "/api/code/turns",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: turn}],
    plant_blind: [base + "/api/code/turns", {method: "POST", mode: "no-cors", body: turn}],
    read: [base + "/api/code/history?q=pelicanmarmalade", {}],
  };
  const said = {};
  for (const [name, [url, init]] of Object.entries(tries)) {
    try {
      const answer = await fetch(url, init);
      said[name] = answer.type === "opaque" ? "opaque" : answer.status + " " + await answer.text();
    } catch (error) {
      said[name] = "failed";
    }
  }
  return said;
}
</script>"""


class _Elsewhere(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = ATTACK.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[str]:
    site = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{site.server_address[1]}"
    site.shutdown()
    site.server_close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("guarded-home")
    index = HistoryIndex.open(home / "history.db")
    index.record(
        turn_id="t-victim", session_id=VICTIM, project="/work/shop",
        asked=f"Where is the {WORD} recipe?", answered=f"In docs/{WORD}.md.",
    )  # fmt: skip
    index.close()
    with recall_serve(home) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_chromium()
    from playwright.sync_api import sync_playwright

    # The rebound name resolves to 127.0.0.1, as an attacker's DNS makes it once the page is
    # loaded. Local Network Access is off: other browsers, and older Chromium, have no such
    # check, and the service must not rely on one.
    args = [
        f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1",
        "--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessRespectPreflightResults",
    ]
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield launched
        finally:
            launched.close()


def still_there(server: Server) -> None:
    found = httpx.get(f"{server.base}/api/code/history", params={"q": WORD}).json()["hits"]
    assert [hit["session_id"] for hit in found] == [VICTIM]
    planted = httpx.get(f"{server.base}/api/code/history", params={"q": "planted"}).json()
    assert planted["hits"] == []


def test_a_page_of_another_origin_changes_nothing(
    browser: Browser, server: Server, elsewhere: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(elsewhere)
    said = page.evaluate("base => attack(base)", server.base)
    context.close()
    # DELETE and a JSON POST need a preflight the service never grants; a blind POST is sent,
    # and refused by the service itself.
    assert said["forget"] == said["forget_project"] == said["plant"] == "failed", said
    assert said["plant_blind"] == "opaque" and said["read"] == "failed", said
    server.wait_for_line("POST /api/code/turns 403 ")
    still_there(server)


def test_a_page_whose_name_is_rebound_to_the_service_changes_and_reads_nothing(
    browser: Browser, server: Server
) -> None:
    context = browser.new_context()
    page = context.new_page()
    rebound = f"http://{REBOUND}:{server.port}"
    # The attacker's own server answered this name first; now it resolves to 127.0.0.1.
    page.route(f"{rebound}/", lambda route: route.fulfill(body=ATTACK, content_type="text/html"))
    page.goto(f"{rebound}/")
    said = page.evaluate("base => attack(base)", rebound)
    context.close()
    for name in ("forget", "forget_project", "plant", "plant_blind", "read"):
        assert said[name] in ("opaque", "failed") or said[name].startswith("421 "), said
    assert WORD not in said["read"], said
    server.wait_for_line("DELETE /api/code/sessions/conv-victim 421 ")
    still_there(server)


def test_the_services_own_page_still_searches_and_forgets(browser: Browser, server: Server) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(locale="en-US", timezone_id="UTC")
    page = context.new_page()
    page.goto(server.base)
    page.locator("#q").fill(WORD)
    expect(page.locator("#results .hit-card").first).to_have_attribute("data-turn", "t-victim")
    page.locator("#results a.open").first.click()
    page.locator("#forget-conversation").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#status")).to_contain_text("is forgotten. Turns deleted: 1.")
    context.close()
    found = httpx.get(f"{server.base}/api/code/history", params={"q": WORD}).json()["hits"]
    assert found == []
    assert server.wait_for_line(f"DELETE /api/code/sessions/{VICTIM} 200 ")
