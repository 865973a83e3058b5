"""Issue 11: the site's own pages pass its Content-Security-Policy in a real Chromium.

Every page a player visits is opened with a listener for `securitypolicyviolation`
events and the console's CSP complaints; none may appear. A control injects an inline
script, which the policy must block and the listener must see.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "tangerine-umbrella-741"
LISTEN = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(
    `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


class ViolationWatch:
    """CSP violations seen by the page (events) and by the console (messages)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.console: list[str] = []
        page.add_init_script(LISTEN)
        page.on("console", self._on_console)

    def _on_console(self, message) -> None:  # type: ignore[no-untyped-def]
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text)

    def seen(self) -> list[str]:
        events = self.page.evaluate("window.__cspViolations || []")
        return [*events, *self.console]


def _visit(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")


def test_the_sites_pages_raise_no_csp_violation(page: Page, live_server):
    watch = ViolationWatch(page)
    base = live_server.url
    visited: dict[str, list[str]] = {}

    for path in ("/login/", "/signup/", "/admin/login/"):
        _visit(page, base + path)
        visited[path] = watch.seen()

    page.goto(f"{base}/signup/")
    page.fill("#id_username", "cspfan")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("form[action='/signup/'] button[type=submit]").click()
    expect(page).to_have_url(f"{base}/")
    visited["/ (lobby)"] = watch.seen()

    page.get_by_test_id("create-room").click()
    visited["/rooms/new/"] = watch.seen()
    page.fill("#id_name", "CSP room")
    page.locator("form[action='/rooms/new/'] button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"{re.escape(base)}/rooms/\d+/$"))
    room_url = page.url
    page.wait_for_timeout(500)  # table.js starts and tries its socket
    visited["room page"] = watch.seen()

    for path in (room_url + "settings/", f"{base}/join/", f"{base}/u/cspfan/",
                 f"{base}/password/", f"{base}/join/no-such-code/"):
        _visit(page, path)
        visited[path] = watch.seen()

    page.get_by_role("button", name="English").click()
    visited["language switch"] = watch.seen()

    assert {where: found for where, found in visited.items() if found} == {}


def test_an_injected_inline_script_is_blocked_and_reported(page: Page, live_server):
    """The control: the watch above can fail, because the policy does block inline code."""
    watch = ViolationWatch(page)
    _visit(page, f"{live_server.url}/login/")
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__ran = true'; document.body.append(s); }"
    )
    page.wait_for_timeout(200)
    assert page.evaluate("window.__ran === true") is False
    assert any("script-src" in v for v in watch.seen())
