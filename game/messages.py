"""Human messages for the refusal codes live play sends to clients.

The code is the contract (clients switch on it); the message is for people and is
translated (Japanese by default). Engine codes (`IllegalAction.code`) pass through
unchanged; the ones listed here get a translated sentence, any other engine code gets
a generic one so a new engine reason never reaches a player untranslated.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

MESSAGES: dict[str, Promise] = {
    # Protocol and access (our own codes).
    "bad_json": _("The message could not be read."),
    "unknown_type": _("Unknown message type."),
    "bad_sync": _("A resuming sync needs a game id and a version number."),
    "too_large": _("The message is too large."),
    "rate_limited": _("Too many messages: slow down a little."),
    "bad_action": _("That action is not understood."),
    "stale": _("The table changed before your action arrived: look again."),
    "not_seated": _("You are not playing in this game."),
    "no_game": _("No game is running in this room."),
    "not_owner": _("Only the owner of the room may start a game."),
    "too_few_players": _("At least two seated players are needed to start."),
    "game_running": _("A game is already running in this room."),
    "server_error": _("Something went wrong on the server. Please try again."),
    # Limits (game/services/limits.py).
    "too_many_matches": _(
        "You already have as many matches running as one account may: stop one or wait "
        "for one to end."
    ),
    "too_many_cpu_games": _(
        "You already have as many games with CPU players running as one account may: "
        "finish or stop one first."
    ),
    "site_busy": _("The site is running as many of these as it can right now: try again "
                   "in a few minutes."),
    "unknown_stamp": _("There is no such stamp."),
    "stamps_off": _("Stamps are turned off in this room."),
    "stamp_too_soon": _("One stamp at a time: wait a moment."),
    "stamp_watcher": _("Only seated players send stamps; watchers see them."),
    # Engine codes (IllegalAction.code) worth a sentence of their own.
    "not_your_turn": _("It is not your turn."),
    "not_in_hand": _("You do not hold those cards."),
    "does_not_match": _("That card does not match the field."),
    "not_identical": _("Only identical cards can be played together."),
    "must_draw_or_stack": _("Stack a draw card or take the stack."),
    "already_drawn": _("You have already drawn this turn: play or pass."),
    "must_draw_before_pass": _("You may pass only after drawing."),
    "cannot_go_out_with_action_card": _("You cannot go out with an action card."),
    "must_choose_color": _("Choose a colour first."),
    "not_chooser": _("You are not choosing a colour."),
    "invalid_color": _("That is not a colour."),
    "no_cut_in_on_first_card": _("Nobody can cut in on the first card."),
    "no_cut_in_on_going_out": _("No cut-in on a going-out play: only dobon."),
    "cannot_cut_in_own_play": _("You cannot cut in on your own play."),
    "window_closed": _("That chance has already closed."),
    "cannot_dobon": _("Your hand's points do not equal the play's points."),
    "already_declared": _("You have already declared dobon."),
    "not_eligible_to_return": _("You cannot return a dobon now."),
    "nothing_to_decline": _("There is nothing to decline."),
    "game_finished": _("The game is over."),
    "game_stopped_by_dobon": _("A dobon stopped the game."),
    "invalid_seat": _("No such seat at this table."),
    "unknown_card": _("Unknown card."),
    "malformed_action": _("That action is not understood."),
    # Trump Dobon (docs/trump-engine.md, §T20.4).
    "trump_seats": _("Trump Dobon needs another number of players."),
    "not_in_this_game": _("This game has no such action."),
    "invalid_suit": _("That is not a suit this card can name."),
    "auction_running": _("The auction is still running: bid first."),
    "going_out_forbidden": _("You may not go out with that card now."),
    "must_play_two_or_draw": _("Play a 2 or draw the cards you owe."),
    "must_answer_shibari": _("Under しばり: play a matching card or take the cards."),
    "suit_required": _("Name a suit with this card."),
    "cannot_declare_last_one": _("You cannot declare last one now."),
    "invalid_count": _("That dobon count is not possible."),
    "not_bidding": _("You cannot bid now."),
    "invalid_bid": _("A bid is a whole number from 1 to 999."),
    "no_yaku": _("Your hand forms no 役."),
}

GENERIC_REFUSAL = _("That action is not allowed now.")


def message_for(code: str) -> str:
    """The translated sentence for `code` in the active language."""
    return str(MESSAGES.get(code, GENERIC_REFUSAL))
