"""Helpers for the browser table tests: signed-in pages at phone and desktop sizes,
a strict Content-Security-Policy added to every answer, console and CSP collectors,
viewport and hidden-card checks, and screenshots at both sizes."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Route
from stack_helpers import session_cookie

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def strict_csp(port: int) -> str:
    # What a strict production policy would say: nothing inline, scripts and styles from
    # our origin only. Style attributes written by JS through element.style stay allowed.
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self' ws://127.0.0.1:{port}; base-uri 'self'; form-action 'self'"
    )


WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@dataclass
class Player:
    name: str
    page: Page
    size: dict[str, int]
    errors: list[str] = field(default_factory=list)

    def csp_violations(self) -> list[str]:
        return list(self.page.evaluate("window.__csp || []"))


def open_player(
    browser: Browser,
    port: int,
    user: Any | None,
    name: str,
    size: dict[str, int],
    locale: str = "ja-JP",
) -> Player:
    context = browser.new_context(
        viewport=size, locale=locale, has_touch=size is PHONE, is_mobile=False
    )
    if user is not None:
        cookie_name, value = session_cookie(user).split("=", 1)
        context.add_cookies(
            [{"name": cookie_name, "value": value, "url": f"http://127.0.0.1:{port}"}]
        )
    policy = strict_csp(port)

    def add_policy(route: Route) -> None:
        response = route.fetch()
        headers = {**response.headers, "content-security-policy": policy}
        route.fulfill(response=response, headers=headers)

    context.route(f"http://127.0.0.1:{port}/**", add_policy)
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    player = Player(name, page, size)
    page.on("console", lambda m: m.type == "error" and player.errors.append(m.text))
    page.on("pageerror", lambda e: player.errors.append(str(e)))
    return player


def outside_viewport(page: Page) -> list[str]:
    """Every hand card, the top card and every enabled action that is not wholly visible."""
    return page.evaluate(
        """() => {
          // "Without scrolling": measured from the top of the page.
          window.scrollTo(0, 0);
          const vw = window.innerWidth, vh = window.innerHeight, bad = [];
          const table = document.querySelector('[data-testid=live-table]');
          const over = table && table.dataset.phase === 'finished';  // the hand makes way
          const hand = document.querySelector('[data-testid=hand]');
          const items = [
            // The hand's own box too (issue 21: it ended 2 px below the fold).
            ...(over || !hand || !hand.querySelector('[data-card]') ? [] : [hand]),
            ...(over ? [] : document.querySelectorAll('[data-testid=hand] [data-card]')),
            ...document.querySelectorAll('.card-top'),
            ...document.querySelectorAll('[data-testid=actions] button:not([disabled])'),
          ];
          for (const el of items) {
            const r = el.getBoundingClientRect();
            // A hand card's own lift (translateY) may take it a few pixels up; it must
            // still be on screen.
            if (r.left < 0 || r.top < 0 || r.right > vw + 0.5 || r.bottom > vh + 0.5 || !r.width)
              bad.push(`${el.dataset.card || el.dataset.action || el.dataset.color
                          || el.dataset.testid || el.className}`
                       + ` at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
          }
          if (document.documentElement.scrollWidth > vw) bad.push('the page scrolls sideways');
          return bad;
        }"""
    )


def cards_in_dom(page: Page, codes: list[str]) -> list[str]:
    """Which of `codes` appear anywhere in the page: as a drawn card or in its text."""
    return page.evaluate(
        """(codes) => {
          const labels = window.dobonCardLabel || ((c) => c);
          const labelled = [...document.querySelectorAll('[aria-label]')];
          const text = document.body.innerText + ' '
            + labelled.map((e) => e.getAttribute('aria-label')).join(' ');
          return codes.filter((c) => document.querySelector(`[data-card="${CSS.escape(c)}"]`)
                                     || text.includes(labels(c)));
        }""",
        codes,
    )


def bars(players: list[Player], step: str) -> list[str]:
    """The first-viewport check after a step, for every page (the acting player and the
    waiting ones) at both sizes: the hand, the top card and every enabled action lie
    inside the viewport without scrolling. Returns what did not fit, named by step."""
    problems = []
    for player in players:
        for size in (PHONE, DESKTOP):
            player.page.set_viewport_size(size)
            player.page.wait_for_timeout(80)
            label = "phone" if size is PHONE else "desktop"
            found = outside_viewport(player.page)
            problems += [f"{step} {player.name} {label}: {p}" for p in found]
        player.page.set_viewport_size(player.size)
    return problems


def english(player: Player, port: int) -> Player:
    """The page in English from now on (Django's language cookie)."""
    player.page.context.add_cookies(
        [{"name": "django_language", "value": "en", "url": f"http://127.0.0.1:{port}"}]
    )
    return player


def shoot(player: Player, out: Path, name: str) -> list[str]:
    """A screenshot at the page's size and at the other size; returns what did not fit."""
    other = DESKTOP if player.size is PHONE else PHONE
    problems = []
    for size in (player.size, other):
        player.page.set_viewport_size(size)
        player.page.wait_for_timeout(120)
        label = "phone" if size is PHONE else "desktop"
        player.page.screenshot(path=str(out / f"{name}-{label}.png"))
        problems += [f"{label}: {p}" for p in outside_viewport(player.page)]
    player.page.set_viewport_size(player.size)
    return problems


def keep(out: Path, names: list[str]) -> None:
    """Copy chosen screenshots to docs/screenshots/ when DOBON_KEEP_SCREENSHOTS=1 (so an
    ordinary test run leaves the checkout alone)."""
    if os.environ.get("DOBON_KEEP_SCREENSHOTS") != "1":
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(out / f"{name}.png", SCREENSHOTS / f"{name}.png")


def two_player_room(name: str, first: Any, second: Any, setup: Any, settings: Any) -> Any:
    """`first` (the owner) and `second` on seats 0 and 1, their game started on the
    fixed deal `setup` (a FixedSetup), with a 60 s timeout and no Celery."""
    from game.models import Membership, Room
    from game.services.fixed_setups import start_fixed_game

    settings.DOBON_TEST_SETUPS_ALLOWED = True
    settings.CELERY_BROKER_URL = ""
    room = Room.objects.create(name=name, owner=first, timeout_seconds=60)
    for index, person in enumerate((first, second)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    start_fixed_game(room, first, setup)
    return room
