"""One whole game in Debian's Chromium through the edge: sign up on the page, "play now
against CPU", and click the person's own moves until the settlement shows. The test
name resolves to the edge's address by --host-resolver-rules and the test CA is the
only thing not checked (--ignore-certificate-errors: Chromium reads its trust store from
an NSS database we would have to create; sslyze and the players check the chain)."""

from __future__ import annotations

import os
import re
import time
from typing import Any

GAME_TIME_LIMIT = 200
CHOICES = [  # what the person presses, first match wins (tests/e2e/test_stack_browser_cpu.py)
    "[data-testid=actions] button[data-action=return]",
    "[data-testid=actions] button[data-action=dobon]",
    "[data-testid=actions] button[data-color]",
    "[data-testid=actions] button[data-action=play]:not([disabled])",
    "[data-testid=hand] button[data-playable=true]",
    "[data-testid=actions] button[data-action=take]",
    "[data-testid=actions] button[data-action=draw]",
    "[data-testid=actions] button[data-action=pass]",
    "[data-testid=actions] button[data-action=decline]",
]


def play(run: Any, name: str, edge: str) -> dict[str, Any]:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright

    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
            f"--host-resolver-rules=MAP {name} {edge}", "--ignore-certificate-errors"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        try:
            page = browser.new_context(locale="ja-JP").new_page()
            page.goto(f"https://{name}/signup/")
            password = f"chromium-{os.urandom(6).hex()}"
            page.fill("#id_username", "chromium1")
            page.fill("#id_password1", password)
            page.fill("#id_password2", password)
            page.locator("form[action='/signup/'] button[type=submit]").click()
            page.wait_for_url(f"https://{name}/")
            run.say("Chromium: signed up through the edge; play now against CPU")
            page.get_by_test_id("play-cpu").click()
            expect(page).to_have_url(re.compile(rf"https://{re.escape(name)}/rooms/\d+/$"))
            expect(page.get_by_test_id("live-table")).to_be_visible(timeout=20000)
            settlement = page.get_by_test_id("settlement")
            clicks, end = 0, time.monotonic() + GAME_TIME_LIMIT
            while not settlement.is_visible():
                if time.monotonic() > end:
                    return {"ok": False,
                            "detail": f"no settlement after {GAME_TIME_LIMIT} s, {clicks} clicks"}
                for selector in CHOICES:
                    button = page.locator(selector).first
                    if button.count():
                        try:
                            button.click(timeout=1000)
                            clicks += 1
                        except PlaywrightError:
                            pass
                        break
                else:
                    page.wait_for_timeout(100)
            text = settlement.inner_text()[:80].replace("\n", " ")
            run.say(f"Chromium: the game reached its settlement after {clicks} clicks")
            return {"ok": True, "detail": f"settlement after {clicks} clicks: {text!r}"}
        finally:
            browser.close()
