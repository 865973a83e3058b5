"""Issue 33, item 3: switching a room's game kind is clean. After the owner switches a
room that just finished a Dobon UNO game to trump au, no Dobon UNO settlement stays over
the table (it covered the au table and hid Start), and the room panel's "Game" row says
the new game without a reload; a reload shows the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import PHONE, open_player

from game.models import Room
from tests.game.history_helpers import play_agari
from tests.game.play_helpers import NOW, make_room

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def test_switching_the_game_clears_the_other_kinds_settlement(
    tmp_path: Path, browser: Browser, alice, bob, carol, dave, settings
):
    require_stack()
    settings.CELERY_BROKER_URL = ""  # this test process schedules nothing; daphne serves
    people = [alice, bob, carol, dave]
    room = make_room(*people)
    play_agari(room, people, now=NOW)
    with stack(tmp_path) as running:
        port = running.daphne()
        owner = open_player(browser, port, alice, "alice", PHONE)
        page = owner.page
        page.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/")
        settlement = page.get_by_test_id("settlement")
        expect(settlement).to_be_visible()  # the last Dobon UNO game's result
        game_row = page.get_by_test_id("room-game").first
        expect(game_row).to_contain_text("ドボン UNO")

        # The owner switches the game on the settings page, in a second tab.
        settings_tab = page.context.new_page()
        settings_tab.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/settings/")
        settings_tab.select_option("#id_game_kind", "trump_dobon")
        settings_tab.select_option("#id_trump_preset", "au")
        settings_tab.get_by_test_id("save-settings").click()
        expect(settings_tab.locator(".message-success")).to_be_visible()
        settings_tab.close()
        assert Room.objects.get(pk=room.pk).trump_preset == "au"
        expect(settlement).to_be_hidden()
        expect(page.get_by_test_id("start-game")).to_be_visible()
        expect(game_row).to_contain_text("au")

        page.reload()
        expect(page.get_by_test_id("start-game")).to_be_visible()
        expect(page.get_by_test_id("settlement")).to_be_hidden()
        assert owner.errors == [], owner.errors
