"""§H1 hand size [配り枚数] and the rule set's validation and visibility (§G2-§G4)."""

from __future__ import annotations

import pytest

from game.rules import (
    DEFAULT_HOUSE_RULES,
    HOUSE_RULE_KEYS,
    PRESETS,
    Game,
    describe_house_rules,
    normalize_house_rules,
    preset_of,
)


def test_h1_1_hand_size_5_deals_five_and_leaves_91() -> None:
    g = Game.new(players=4, first_player=1, seed=11, house_rules={"hand_size": 5})
    assert g.hand_counts == [5, 5, 5, 5]
    assert g.deck_count == 112 - 20 - 1 == 91
    assert Game.new(players=4, first_player=1, seed=11).deck_count == 83


def test_h1_1_eight_seats_of_ten_leave_31() -> None:
    g = Game.new(players=8, first_player=0, seed=2, house_rules={"hand_size": 10})
    assert g.hand_counts == [10] * 8 and g.deck_count == 31


@pytest.mark.parametrize("size", [2, 11, "5", 5.0, True, None])
def test_h1_hand_size_outside_3_to_10_is_refused(size: object) -> None:
    with pytest.raises(ValueError, match="hand_size"):
        Game.new(players=4, first_player=0, seed=1, house_rules={"hand_size": size})


@pytest.mark.parametrize("rules,word", [
    ({"stacking": "crossed"}, "stacking"), ({"cut_in": None}, "cut_in"),
    ({"seven_zero": 1}, "seven_zero"), ({"multi_dobon": "last"}, "multi_dobon"),
    ({"rate_cap": 3}, "rate_cap"), ({"rate_cap": 2048}, "rate_cap"),
    ({"session_games": 0}, "session_games"), ({"session_target": 99}, "session_target"),
    ({"jump_in": True}, "unknown house rule"), ([("hand_size", 5)], "JSON object"),
])
def test_g4_unknown_keys_and_bad_values_raise_value_error(rules: object, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        Game.new(players=4, first_player=0, seed=1, house_rules=rules)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=word):
        Game.from_setup(hands=[["R1"], ["R2"]], first_card="R3", deck=[],
                        house_rules=rules)  # type: ignore[arg-type]


def test_g3_every_view_shows_the_full_rule_set() -> None:
    g = Game.new(players=3, first_player=0, seed=4, house_rules={"hand_size": 4})
    for seat in (None, 0, 1, 2):
        rules = g.view(seat)["house_rules"]
        assert set(rules) == set(HOUSE_RULE_KEYS) and len(rules) == 16
        assert rules["hand_size"] == 4 and rules["stacking"] == "standard"
    assert Game.new(players=2, first_player=0, seed=1).view(0)["house_rules"] == dict(
        DEFAULT_HOUSE_RULES)


def test_g2_the_rule_set_round_trips_with_the_state() -> None:
    g = Game.new(players=4, first_player=0, seed=9, house_rules=dict(PRESETS["classic"]))
    d = g.to_dict()
    assert d["house_rules"] == dict(PRESETS["classic"])
    assert Game.from_dict(d).house_rules == dict(PRESETS["classic"])
    old = Game.new(players=2, first_player=0, seed=1).to_dict()
    del old["house_rules"]  # a game saved before house rules
    assert Game.from_dict(old).house_rules == dict(DEFAULT_HOUSE_RULES)


def test_g5_h13_h14_are_stored_and_shown_but_change_nothing_in_the_engine() -> None:
    site = {"rate_cap": 8, "session_games": 20, "session_target": 500}
    g = Game.new(players=4, first_player=1, seed=5, house_rules=site)
    plain = Game.new(players=4, first_player=1, seed=5)
    assert type(g) is Game  # plays exactly as RULES.md
    assert g.view(0)["house_rules"] | {} == dict(DEFAULT_HOUSE_RULES) | site
    assert {k: v for k, v in g.to_dict().items() if k != "house_rules"} == {
        k: v for k, v in plain.to_dict().items() if k != "house_rules"}


def test_s7_presets_set_every_key_and_are_named() -> None:
    assert set(PRESETS) == {"standard", "party", "classic", "competitive"}
    for name, preset in PRESETS.items():
        assert set(preset) == set(HOUSE_RULE_KEYS)
        assert preset_of(dict(preset)) == name
        assert normalize_house_rules(dict(preset)) == dict(preset)
    assert PRESETS["classic"]["hand_size"] == 5 and PRESETS["competitive"]["rate_cap"] == 8
    assert preset_of(None) == "standard" and preset_of({"seven_zero": True}) is None
    assert describe_house_rules(dict(PRESETS["party"]) | {"hand_size": 6}) == {
        "preset": "custom",
        "changed": {"hand_size": 6, "cut_in": "same_number", "stacking": "cross",
                    "action_finish": True, "mixed_color_multi": True, "seven_zero": True,
                    "reshuffle": True}}


def test_s7_custom_from_a_preset_names_what_changed_from_it() -> None:
    rules = dict(PRESETS["classic"]) | {"hand_size": 4}
    assert describe_house_rules(rules, base="classic") == {
        "preset": "custom", "from": "classic", "changed": {"hand_size": 4}}
    assert describe_house_rules(dict(PRESETS["classic"]), base="party")["preset"] == "classic"
    with pytest.raises(ValueError, match="unknown preset"):
        describe_house_rules({"hand_size": 4}, base="crazy")
