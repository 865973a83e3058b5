"""Issue #30: a table whose socket was away while its game ended. alice's socket drops and
stays away (its reconnect held by the test); meanwhile bob goes out (§R8 agari) and the
next game starts. When alice's table is back, it shows the end it missed — the log's
finishing line, the settlement from the game's own final frame — and then the next game,
in that order, as a table that stayed connected does; and it never went back from the
next game to the old one (the connect's table of the next game is skipped until the
resume's answer brings the end first)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, open_player, two_player_room

from game.models import Game
from game.services import play
from game.services.fixed_setups import FixedSetup

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

# bob plays first and goes out with R9 on the R7: alice has no R9 to cut in with and her
# hand ("R5" + "B3" = 8) is no dobon on a 9.
SETUP = FixedSetup(hands=[["R5", "B3"], ["R9"]], first_card="R7", deck=["G1", "G2", "G3", "G4"],
                   first_player=1)
WAIT_MS = 20_000

# The games the table showed, frame by frame, whether the settlement was ever on screen,
# and a socket whose reconnect waits for the test (`window.__back()`).
WATCH = """() => {
  const app = window.dobonTable, apply = app.applyState.bind(app);
  const shown = () => {
    const s = app.state;
    return s && s.game ? `${s.game}@${s.version}` : "none";
  };
  window.__shown = [shown()];
  app.applyState = (message) => {
    apply(message);
    if (shown() !== window.__shown[window.__shown.length - 1]) window.__shown.push(shown());
  };
  window.__settled = false;
  new MutationObserver(() => { window.__settled ||= !app.ui.settlement.hidden; })
    .observe(app.ui.settlement, { attributes: true, attributeFilter: ["hidden"] });
  app.socket.later = (fn) => { window.__back = fn; };
}"""


def until(player: Any, script: str, wanted: Any) -> None:
    """Poll `script` on the page until it gives `wanted` (the page's CSP forbids the
    string evaluation wait_for_function does)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while (got := player.page.evaluate(script)) != wanted:
        assert time.monotonic() < deadline, f"{script} gave {got!r}, not {wanted!r}"
        player.page.wait_for_timeout(50)


def test_a_table_back_after_its_game_ended_shows_the_end_then_the_next_game(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    require_stack()
    room = two_player_room("resume", alice, bob, SETUP, settings)
    first = Game.objects.get(room=room)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = open_player(browser, port, alice, "alice", PHONE)
        b = open_player(browser, port, bob, "bob", DESKTOP)
        for p, cards in ((a, 2), (b, 1)):
            p.page.goto(url)
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(
                cards, timeout=WAIT_MS)
        a.page.evaluate(WATCH)
        a.page.evaluate("window.dobonTable.socket.drop()")
        until(a, "() => typeof window.__back === 'function'", True)

        b.page.get_by_test_id("hand").locator("[data-card=R9]").click()
        expect(b.page.get_by_test_id("settlement")).to_be_visible(timeout=WAIT_MS)
        with ThreadPoolExecutor(max_workers=1) as pool:  # its push needs a loop of its own
            second = pool.submit(play.start_game, room, alice).result()
        expect(b.page.get_by_test_id("settlement")).to_be_hidden(timeout=WAIT_MS)

        a.page.evaluate("window.__back()")
        until(a, "() => (window.dobonTable.state || {}).game", second.pk)
        first.refresh_from_db()
        assert a.page.evaluate("window.__shown") == [
            f"{first.pk}@0", f"{first.pk}@{first.version}", f"{second.pk}@0"]
        assert a.page.evaluate("window.__settled") is True, "the end's settlement was shown"
        log = a.page.locator("[data-role=log] li").all_inner_texts()
        assert any("bob" in line and "上がり" in line for line in log), log
        assert "ゲーム終了" in log, log
        assert a.errors == [], a.errors
        for p in (a, b):  # the room panel may be fetching still: its route lets go
            p.page.context.unroute_all(behavior="ignoreErrors")
            p.page.context.close()
