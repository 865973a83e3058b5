"""Issue #30: a rolling restart under a live table, behind nginx. Two daphnes behind
Debian's nginx (game/management/bench/proxy.py's configuration); alice and bob play
through the proxy; each daphne in turn gets SIGTERM, exits, starts again and answers.
Each table comes back by itself with its state, a move made between the restarts
reaches the other player, and neither page ever shows a word about the connection
(no "reconnecting", no error, no toast, no dimmed felt)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import free_port, require_stack, stack, wait_for_http
from table_helpers import DESKTOP, PHONE, open_player, two_player_room

from game.management.bench.proxy import Nginx
from game.models import Game
from game.rules import Game as Engine
from game.services.fixed_setups import FixedSetup

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

SETUP = FixedSetup(
    hands=[["R5", "B3", "G7"], ["R+2", "Y9", "B8"]], first_card="R7", deck=["G1", "G2", "G3", "G4"]
)

# A shared, busy machine: a daphne may take several seconds to read a table.
WAIT_MS = 20_000

# Every text the connection line and the toast ever show, kept by the page itself.
WATCH_WORDS = """() => {
  window.__shown = [];
  for (const role of ["conn", "toast"]) {
    const node = document.querySelector(`[data-role=${role}]`);
    const note = () => { if (node.textContent.trim()) window.__shown.push(node.textContent); };
    new MutationObserver(note).observe(node, { childList: true, characterData: true,
                                               subtree: true });
  }
  window.__statuses = [];  // every connection status the socket reports
  const app = window.dobonTable, report = app.connection.bind(app);
  app.connection = (status) => { window.__statuses.push(status); report(status); };
  window.__offline = false;
  const table = document.querySelector(".live-table");
  new MutationObserver(() => { window.__offline ||= table.classList.contains("is-offline"); })
    .observe(table, { attributes: true, attributeFilter: ["class"] });
}"""


def hand_has(player: Any, cards: int) -> None:
    expect(player.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(
        cards, timeout=WAIT_MS)


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_rolling_restart_behind_nginx_brings_every_table_back_without_a_word(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    require_stack()
    room = two_player_room("restart", alice, bob, SETUP, settings)
    proxy_port = free_port()
    origin = f"http://127.0.0.1:{proxy_port}"
    with stack(tmp_path) as running:
        ports = [running.daphne(origins=(origin,)) for _ in range(2)]
        nginx = Nginx(tmp_path / "nginx", proxy_port, ports)
        nginx.start()
        try:
            url = f"{origin}/rooms/{room.pk}/"
            a = open_player(browser, proxy_port, alice, "alice", PHONE)
            b = open_player(browser, proxy_port, bob, "bob", DESKTOP)
            for p in (a, b):
                p.page.goto(url)
                hand_has(p, 3)
                p.page.evaluate(WATCH_WORDS)

            for turn, port in enumerate(ports):
                process = running.daphne_process(port)
                process.send_signal(15)  # SIGTERM
                assert process.wait(15) == 0
                assert refused(port)
                running.daphne(port=port, origins=(origin,))
                wait_for_http(port)
                if turn == 0:
                    # Between the restarts: alice plays, bob sees it (both are back).
                    a.page.get_by_test_id("hand").locator("[data-card=R5]").click()
                    hand_has(b, 3)
                    hand_has(a, 2)

            # Every socket was on a daphne that restarted; both tables are back and live.
            hand_has(a, 2)
            hand_has(b, 3)
            b.page.get_by_test_id("hand").locator("[data-card='R+2']").click()
            hand_has(b, 2)
            engine = Engine.from_dict(Game.objects.get(room=room).state)
            assert engine.top == "R+2"
            for p in (a, b):
                # The last restart closed every socket (all were on that daphne by then):
                # each came back quietly, never "reconnecting".
                statuses = p.page.evaluate("window.__statuses")
                assert "restarting" in statuses and "reconnecting" not in statuses, statuses
                assert statuses[-1] == "open", statuses
                expect(p.page.locator("[data-role=conn]")).to_have_text("", timeout=WAIT_MS)
                assert p.page.evaluate("window.__shown") == [], p.name
                assert p.page.evaluate("window.__offline") is False, p.name
                assert p.errors == [], (p.name, p.errors)
                p.page.context.close()
        finally:
            nginx.stop()
