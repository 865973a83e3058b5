"""HOUSE-RULES.md §6 §R15 additions: what each seat (and a spectator) sees under house rules."""

from __future__ import annotations

from .helpers import DRAW, PASS, play
from .house_helpers import hsetup, swap, told


def test_h6_r15_swap_public_new_hands_private_spectator_sees_counts() -> None:
    g = hsetup({"seven_zero": True},
               [["R7", "G3", "G9"], ["Y1", "Y2", "Y9"], ["B4", "B8"], ["G1", "Y6"]], first="R5")
    g.apply(0, play("R7"), 0.0)
    spectator = g.view(None)
    assert (spectator["phase"], spectator["chooser"], spectator["turn"]) == ("swap", 0, None)
    assert spectator["legal_actions"] == [] and "hand" not in spectator
    assert g.view(1)["legal_actions"] == []  # only the chooser answers the swap
    events = g.apply(0, swap(3), 1.0)
    public = [e for e in events if e["to"] is None]
    assert all("cards" not in e for e in public)
    assert {e["to"]: e["cards"] for e in told(events, "hand")} == {0: ["G1", "Y6"],
                                                                  3: ["G3", "G9"]}
    assert g.view(None)["hand_counts"] == [2, 3, 2, 2]
    assert g.view(2)["revealed"] == [None, None, None, None]


def test_h10_r15_a_seat_that_can_dobon_is_told_exactly_what_one_that_cannot_is() -> None:
    g = hsetup({"blind_dobon": True},
               [["R5", "G9"], ["Y1", "Y4"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    events = g.apply(0, play("R5"), 0.0)
    told_to = {e["to"]: {k: v for k, v in e.items() if k not in ("to", "seat")}
               for e in told(events, "chance")}
    assert told_to[1] == told_to[2] == told_to[3]  # seat 1 (1 + 4 = 5) can; 2 and 3 cannot
    views = [g.view(s) for s in (1, 2, 3)]
    assert [v["chances"] for v in views] == [["dobon"]] * 3
    assert views[1]["legal_actions"] == views[2]["legal_actions"]


def test_h12_r15_a_reshuffle_is_public_its_order_is_nobodys() -> None:
    g = hsetup({"reshuffle": True},
               [["R7", "G1"], ["Y1", "Y2"], ["B4", "B6"]], first="R5", deck=["Y9"])
    g.apply(0, play("R7"), 0.0)
    g.apply(1, DRAW, 1.0)
    g.apply(1, PASS, 1.5)
    events = g.apply(2, DRAW, 2.0)
    assert told(events, "reshuffle")[0]["to"] is None
    assert g.view(None)["deck_count"] == 0 and "deck" not in g.view(0)
    assert [e["to"] for e in told(events, "drawn")] == [2]
