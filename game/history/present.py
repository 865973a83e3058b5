"""Words for the history pages: the settlement's arithmetic (§R11) and each event of
the timeline, in the reader's language. Pure functions of the stored log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from game.history.replay import Frame
from game.models import Game, GamePlayer
from game.rules import Game as Engine
from game.rules import registry
from game.services.history import is_cpu_seat
from game.templatetags.history import trump_short

RESULT_KINDS = {
    "agari": gettext_lazy("going out"),
    "dobon": gettext_lazy("dobon"),
    "return": gettext_lazy("dobon return"),
    "deck_out": gettext_lazy("deck-out"),
    "aborted": gettext_lazy("aborted"),
}
COLOR_NAMES = {
    "R": gettext_lazy("red"), "B": gettext_lazy("blue"),
    "G": gettext_lazy("green"), "Y": gettext_lazy("yellow"),
}
TIMEOUT_ACTIONS = {
    "draw": gettext_lazy("draws"),
    "bid": gettext_lazy("bids 1"),
    "draw_pass": gettext_lazy("draws and passes"),
    "pass": gettext_lazy("passes"),
    "color": gettext_lazy("gets a random colour"),
    "take": gettext_lazy("takes the stack"),
}
CHANCE_KINDS = {
    "cut_in": gettext_lazy("cut in"),
    "dobon": gettext_lazy("dobon"),
    "return": gettext_lazy("return the dobon"),
}
# Trump Dobon's bonuses (TRUMP-RULES.md §T16.4), by the result's names.
BONUS_NAMES = {
    "multi": gettext_lazy("multi dobon"), "joker": gettext_lazy("joker dobon"),
    "flush": gettext_lazy("flush dobon"), "storm": gettext_lazy("storm dobon"),
    "disrupt": gettext_lazy("disrupt dobon"), "quick": gettext_lazy("quick dobon"),
    "slam": gettext_lazy("slam"), "auction": gettext_lazy("auction points"),
    "yaku": gettext_lazy("役 (yaku)"),
}
# Clock events say when a deadline starts; the timeline shows what players did.
QUIET = {"turn", "choose", "drawn"}


def result_kind(game: Game) -> str:
    if game.status == Game.Status.ABORTED or not game.result:
        return "aborted"
    return str(game.result["kind"])


def result_label(game: Game) -> str:
    return str(RESULT_KINDS.get(result_kind(game), result_kind(game)))


def names_of(players: list[GamePlayer]) -> list[str]:
    names = [""] * (max((p.seat for p in players), default=-1) + 1)
    for p in players:
        names[p.seat] = p.display_name
    return names


def winners_of(game: Game, names: list[str]) -> list[str]:
    if not game.result:
        return []
    return [names[s] for s in game.result["winners"] if s < len(names)]


# -- settlement -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SettlementSeat:
    seat: int
    name: str
    is_cpu: bool
    hand: list[str]
    hand_points: int
    delta: int
    winner: bool
    dobonned: bool
    tone: str = ""  # "plus" good, "minus" bad, as the game counts (trump standard: lower wins)
    note: str = ""  # why a trump seat's hand points are what they are
    caught: tuple[str, ...] = ()  # the dobon'd card, drawn in its player's hand (trump au)


@dataclass(frozen=True)
class Settlement:
    kind: str
    label: str
    rate: int
    seats: list[SettlementSeat]
    payments: list[tuple[str, str, int]]
    sums: list[str]  # §R11's arithmetic, one line each
    how: str = ""  # trump Dobon: who dobon'd whom on which card, in a sentence


def settlement_of(
    game: Game, players: list[GamePlayer], events: list[dict[str, Any]]
) -> Settlement | None:
    """The final hands, payments and §R11's worked sums of a finished game."""
    result = game.result
    if game.status != Game.Status.FINISHED or not result:
        return None
    if game.game_kind == "trump_dobon":
        return trump_settlement_of(result, players, events)
    names = names_of(players)
    finished: dict[str, Any] = next(
        (e for e in reversed(events) if e.get("type") == "finished"), {}
    )
    hands = finished.get("hands") or [[] for _ in names]
    target = next((e.get("target") for e in events if e.get("type") == "dobon"), None)
    seats = [
        SettlementSeat(
            seat=p.seat, name=p.display_name, is_cpu=is_cpu_seat(p),
            hand=list(hands[p.seat]) if p.seat < len(hands) else [],
            hand_points=int(result["hand_points"][p.seat]),
            delta=int(result["deltas"][p.seat]),
            winner=p.seat in result["winners"],
            dobonned=result["kind"] == "dobon" and p.seat == target,
            tone=_tone(int(result["deltas"][p.seat]), "high"),
        )
        for p in players
    ]
    payments = [(names[a], names[b], int(pts)) for a, b, pts in result["payments"]]
    return Settlement(
        result["kind"], str(RESULT_KINDS.get(result["kind"], "")), int(result["rate"]),
        seats, payments, worked_sums(result, names, target),
    )


def _tone(delta: int, score_order: str) -> str:
    """Good or bad as the game counts: highest total first, or (trump standard, §T16.3)
    lowest first, where a negative change is good."""
    better = delta < 0 if score_order == "low" else delta > 0
    worse = delta > 0 if score_order == "low" else delta < 0
    return "plus" if better else "minus" if worse else ""


# -- trump Dobon's settlement (TRUMP-RULES.md §T15, §T16) -------------------------------------


def dobonned_play(result: dict[str, Any], events: list[dict[str, Any]]
                  ) -> tuple[int | None, list[str]] | None:
    """The seat whose play was dobon'd and its cards: au, the play the first dobon answered
    (§T15.3's card); standard, the result's (cut) target. None without a dobon."""
    if result["kind"] not in ("dobon", "return"):
        return None
    first_dobon = next((i for i, e in enumerate(events) if e.get("type") == "dobon"), None)
    if first_dobon is None:
        return None
    play = next((e for e in reversed(events[:first_dobon]) if e.get("type") == "play"), None)
    seat = play.get("seat") if play else None
    if result["score_order"] == "low":
        target = list(result.get("target") or [])
        return (seat, target) if target else None
    return (seat, list(play["cards"])) if play and play.get("cards") else None


def trump_how(result: dict[str, Any], names: list[str],
              caught: tuple[int | None, list[str]] | None) -> str:
    """One sentence: who dobon'd whom on which card, who returned it, who stopped or went out."""
    def who(seats: list[int]) -> str:
        return "・".join(names[s] for s in seats)
    if caught is not None:
        player, cards = caught
        card = " ".join(trump_short(c) for c in cards)
        chain = result.get("chain") or []
        if result["score_order"] == "high" and len(chain) > 1 and result["kind"] == "return":
            return _("%(who)s returned %(whom)s's dobon! (%(player)s's %(card)s)") % {
                "who": who(result["winners"]), "whom": who(result["losers"]),
                "player": names[player] if player is not None else "?", "card": card}
        if result["score_order"] == "high" and len(chain) > 1:
            return _("%(winner)s wins, %(loser)s pays (%(count)d dobons on %(player)s's "
                     "%(card)s)") % {
                "winner": who(result["winners"]), "loser": who(result["losers"]),
                "count": len(chain), "player": names[player] if player is not None else "?",
                "card": card}
        if result["score_order"] == "low" and result["kind"] == "return":
            return _("%(who)s returned %(whom)s's dobon! (%(card)s)") % {
                "who": who(result["winners"]), "whom": who(result["losers"]), "card": card}
        return _("%(who)s dobon'd %(whom)s on %(card)s!") % {
            "who": who(result["winners"]), "whom": who(result["losers"]), "card": card}
    if result["kind"] == "agari":
        if result["score_order"] == "high":
            return _("%(who)s stopped!") % {"who": who(result["winners"])}
        return _("%(who)s went out!") % {"who": who(result["winners"])}
    return ""


def trump_settlement_of(result: dict[str, Any], players: list[GamePlayer],
                        events: list[dict[str, Any]]) -> Settlement:
    """A trump round's settlement: the sentence, each row's note and the worked sums."""
    names = names_of(players)
    finished: dict[str, Any] = next(
        (e for e in reversed(events) if e.get("type") == "finished"), {}
    )
    hands = finished.get("hands") or [[] for _ in names]
    caught = dobonned_play(result, events)
    order = str(result["score_order"])
    # standard: a declarer's (or returner's) cards were put out, not held; show them as the
    # table does (§T19.4), beside the note that says why its base points are 0
    put_out = {e["seat"]: list(e.get("hand") or []) for e in events
               if order == "low" and e.get("type") in ("dobon", "return")}
    seats = []
    for p in players:
        delta = int(result["deltas"][p.seat])
        held = list(hands[p.seat]) if p.seat < len(hands) else []
        seats.append(SettlementSeat(
            seat=p.seat, name=p.display_name, is_cpu=is_cpu_seat(p),
            hand=held or (put_out.get(p.seat, []) if p.seat in result["winners"] else []),
            hand_points=int(result["hand_points"][p.seat]), delta=delta,
            winner=p.seat in result["winners"],
            dobonned=result["kind"] in ("dobon", "return") and p.seat in result["losers"],
            tone=_tone(delta, order), note=_standard_note(result, p.seat) if order == "low" else "",
            caught=tuple(caught[1]) if order == "high" and caught and caught[0] == p.seat else (),
        ))
    payments = [(names[a], names[b], int(pts)) for a, b, pts in result["payments"]]
    return Settlement(
        result["kind"], str(RESULT_KINDS.get(result["kind"], "")), int(result["rate"]),
        seats, payments, trump_worked_sums(result, names, caught),
        trump_how(result, names, caught),
    )


def _empty_hand_why(result: dict[str, Any], seat: int) -> str:
    """Why a standard winner holds no cards and has base points 0 (§T16.1), or ""."""
    if result["hand_points"][seat] != 0 or seat not in result["winners"]:
        return ""
    reasons = {"agari": _("went out: no cards left"),
               "dobon": _("put out for the dobon: no cards left"),
               "return": _("put out for the return: no cards left")}
    return reasons.get(result["kind"], "")


def _standard_note(result: dict[str, Any], seat: int) -> str:
    if seat in (result.get("losers") or []):
        return _("a loser's own hand is not counted")
    return _empty_hand_why(result, seat)


def trump_worked_sums(result: dict[str, Any], names: list[str],
                      caught: tuple[int | None, list[str]] | None = None) -> list[str]:
    """TRUMP-RULES.md §T15 (au) or §T16 (standard) written out with this round's numbers."""
    if result["kind"] == "deck_out" and not result["winners"]:
        return [_("The deck ran out (T9): nobody won this round.")]
    if result["score_order"] == "high":
        return _au_sums(result, names, caught)
    return _standard_sums(result, names)


def _au_sums(result: dict[str, Any], names: list[str],
             caught: tuple[int | None, list[str]] | None) -> list[str]:
    """§T15.2 (each loser's hand value × its 2s) or §T15.3 (X's value, its factors, the payment)."""
    points = result["hand_points"]
    if result["kind"] == "agari":
        lines = []
        for payer, payee, amount in result["payments"]:
            twos = (amount // points[payer]).bit_length() - 1 if points[payer] else 0
            lines.append(_("%(payer)s → %(payee)s  %(points)d = %(payer)s's hand value %(value)d × "
                           "%(factor)d for %(twos)d two(s)")
                         % {"payer": names[payer], "payee": names[payee], "points": amount,
                            "value": points[payer], "factor": 1 << twos, "twos": twos})
        return lines
    multiplier = result.get("multiplier")
    if not multiplier or not result["payments"]:
        return []
    payer, payee, amount = result["payments"][0]
    value = amount // multiplier
    dobons = len(result.get("chain") or [])
    twos = multiplier.bit_length() - 1 - dobons
    card = " ".join(trump_short(c) for c in caught[1]) if caught else "?"
    return [
        _("Value %(sum)d = %(winner)s's hand %(w)d + %(loser)s's hand %(l)d + the dobon'd "
          "%(card)s %(c)d") % {"sum": value, "winner": names[payee], "w": points[payee],
                               "loser": names[payer], "l": points[payer], "card": card,
                               "c": value - points[payee] - points[payer]},
        (_("Multiplier ×%(m)d = ×%(f2)d for %(twos)d two(s) × ×%(fd)d for %(d)d dobon(s)")
         if dobons == 1 else
         _("Multiplier ×%(m)d = ×%(f2)d for %(twos)d two(s) × ×%(fd)d for %(d)d dobons and "
           "returns"))
        % {"m": multiplier, "f2": 1 << twos, "twos": twos, "fd": 1 << dobons, "d": dobons},
        _("%(payer)s → %(payee)s  %(points)d = value %(sum)d × multiplier %(m)d")
        % {"payer": names[payer], "payee": names[payee], "points": amount, "sum": value,
           "m": multiplier},
    ]


def _standard_sums(result: dict[str, Any], names: list[str]) -> list[str]:
    """§T16.3 for every seat, each term labelled: base points or w × …, each bonus by name."""
    worst = result.get("worst")
    lines = []
    if worst is not None:
        lines.append(_("Worst points %(w)d (the highest base points of a seat that did not lose)")
                     % {"w": worst})
    losers = result.get("losers") or []
    for seat, score in enumerate(result["deltas"]):
        bonuses = [(name, p) for s, name, p in result.get("bonuses") or [] if s == seat]
        terms = "".join(f" {'+' if p >= 0 else '−'} {BONUS_NAMES.get(n, n)} {abs(p)}"
                        for n, p in bonuses)
        if seat in losers and worst is not None:
            if result["kind"] == "return":
                part, first = worst * 6, _("worst %(w)d × 6 (a return)") % {"w": worst}
            else:
                winners = len(result["winners"])
                part = worst * winners * 2
                first = _("worst %(w)d × %(n)d winner(s) × 2") % {"w": worst, "n": winners}
            if terms:
                first = f"{first} = {part}"
        else:
            first = _("base points %(b)d") % {"b": result["hand_points"][seat]}
            why = _empty_hand_why(result, seat)
            if why:
                first = _("%(base)s (%(why)s)") % {"base": first, "why": why}
        total = f" = {signed_number(score)}" if terms or seat in losers else ""
        lines.append(f"{names[seat]}: {first}{terms}{total}")
    return lines


def signed_number(n: int) -> str:
    """A result with a true minus sign (−200), as the table writes it."""
    return f"−{-n}" if n < 0 else str(n)


def worked_sums(result: dict[str, Any], names: list[str], target: int | None) -> list[str]:
    """RULES.md §R11 written out with this game's numbers."""
    kind, rate, points = result["kind"], int(result["rate"]), result["hand_points"]
    if kind == "deck_out":
        return [_("Deck-out: no points change hands.")]
    if kind == "agari":
        winner = names[result["winners"][0]]
        return [
            _("%(payer)s pays %(winner)s: %(points)d × %(rate)d = %(total)d")
            % {"payer": names[s], "winner": winner, "points": p, "rate": rate, "total": p * rate}
            for s, p in enumerate(points)
            if s != result["winners"][0]
        ]
    total = sum(points)
    terms = " + ".join(str(p) for p in points)
    lines = [_("T = %(terms)s = %(total)d (every hand; the dobon'd play counted back)")
             % {"terms": terms, "total": total}]
    who = names[target] if target is not None else "?"
    for seat in ([] if kind == "return" else result["winners"]):
        lines.append(_("%(target)s pays %(declarer)s: T × %(rate)d = %(amount)d")
                     % {"target": who, "declarer": names[seat], "rate": rate,
                        "amount": total * rate})
    if kind == "return":
        for payer, _payee, amount in result["payments"]:
            lines.append(_("%(declarer)s pays %(returner)s: T × %(rate)d = %(amount)d")
                         % {"declarer": names[payer], "returner": who, "rate": rate,
                            "amount": amount})
    return lines


# -- timeline ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One readable line of the timeline; `cards` are shown as cards after the text."""

    seat: int | None
    text: str
    cards: list[str]
    kind: str
    quiet: bool = False


def first_player_of(initial_state: dict[str, Any]) -> int | None:
    """§R3.2's first player F, read back from the engine state at version 0: the seat for
    which turning up the same first card on the same deal (under the game's house rules)
    gives the same table. Not always the seat on turn: after a first S (§R3.3) F's left
    neighbour is on turn, after a first W F chooses the colour and nobody is on turn.

    >>> from game.rules import Game
    >>> state = Game.from_setup(hands=[["R1"], ["R2"], ["R3"]], first_card="RS", deck=[],
    ...                         first_player=1).to_dict()
    >>> state["turn"], first_player_of(state)
    (2, 1)
    """
    if "preset" in initial_state:  # trump Dobon: its engine records the first player
        trump: Any = registry.load(registry.TRUMP_DOBON, initial_state)
        first: int | None = trump.first_player
        return first
    engine = Engine.from_dict(initial_state)
    seen = (engine.turn, engine.chooser, engine.direction)
    for seat in range(engine.players):
        probe = Engine.from_setup(
            hands=initial_state["hands"], first_card=engine.top,
            deck=list(initial_state["deck"]), first_player=seat,
            house_rules=initial_state.get("house_rules"),
        )
        if (probe.turn, probe.chooser, probe.direction) == seen:
            return seat
    return engine.turn


def describe(event: dict[str, Any], names: list[str], before: dict[str, Any] | None) -> Line | None:
    """A line for `event`, or None for clock events. `before` is the table before the
    event's frame (to tell a stack from a plain play)."""
    kind = event.get("type", "")
    if kind in QUIET:
        return None
    seat = event.get("seat")
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else ""
    describer = _DESCRIBERS.get(kind)
    if describer is None:
        return Line(seat, kind, [], kind, quiet=True)
    line: Line = describer(event, name, names, before)
    return line


def _play(e: dict[str, Any], name: str, names: list[str], before: dict[str, Any] | None) -> Line:
    cards = list(e.get("cards", []))
    if "points" not in e:  # trump Dobon: a play has no points
        text = _("%(name)s plays, last one!") if e.get("last_one") else _("%(name)s plays")
        return Line(e.get("seat"), text % {"name": name}, cards, "play")
    stacking = bool(before and before.get("pending_draw")) and not e.get("cut_in")
    if e.get("cut_in"):
        text = _("%(name)s cuts in (%(points)d points)")
    elif stacking:
        text = _("%(name)s stacks (%(points)d points)")
    else:
        text = _("%(name)s plays (%(points)d points)")
    kind = "cut_in" if e.get("cut_in") else ("stack" if stacking else "play")
    return Line(e.get("seat"), text % {"name": name, "points": e.get("points", 0)}, cards, kind)


def _simple(text: Any, kind: str, quiet: bool = False) -> Any:
    def line(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
        return Line(e.get("seat"), str(text) % {"name": name, "count": e.get("count", 0)}, [],
                    kind, quiet)
    return line


def _color(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    colour = COLOR_NAMES.get(e.get("color", ""), e.get("color", ""))
    return Line(e.get("seat"), _("%(name)s chooses %(colour)s") % {"name": name,
                                                                     "colour": colour},
                [], "color")


def _chance(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    kinds = " / ".join(str(CHANCE_KINDS.get(k, k)) for k in e.get("kinds", []))
    return Line(e.get("seat"), _("%(name)s could %(kinds)s") % {"name": name, "kinds": kinds},
                [], "chance", quiet=True)


def _decline(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    text = _("%(name)s's chance lapsed") if e.get("timeout") else _("%(name)s declines")
    return Line(e.get("seat"), text % {"name": name}, [], "decline", quiet=True)


def _dobon(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    target = e.get("beats", e.get("target"))
    if isinstance(target, list):  # trump standard: the target's cards
        return Line(e.get("seat"), _("%(name)s declares DOBON") % {"name": name},
                    list(e.get("hand", [])), "dobon")
    whom = names[target] if isinstance(target, int) and target < len(names) else "?"
    return Line(e.get("seat"), _("%(name)s declares DOBON on %(target)s")
                % {"name": name, "target": whom}, list(e.get("hand", [])), "dobon")


def _return(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    return Line(e.get("seat"), _("%(name)s returns the dobon") % {"name": name},
                list(e.get("hand", [])), "return")


def _timeout(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    action = TIMEOUT_ACTIONS.get(e.get("action", ""), e.get("action", ""))
    return Line(e.get("seat"), _("Time is up: %(name)s %(action)s")
                % {"name": name, "action": action}, [], "timeout")


def _start(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    if "preset" in e:  # trump Dobon: no rate (§T1.7)
        return Line(e.get("seat"), _("The round starts; field card:"), [e.get("top", "")],
                    "start")
    return Line(e.get("seat"), _("The game starts at ×%(rate)d; first card:")
                % {"rate": e.get("rate", 1)}, [e.get("top", "")], "start")


def _finished(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    kind = (e.get("result") or {}).get("kind", "")
    return Line(None, _("The game ends: %(kind)s") % {"kind": RESULT_KINDS.get(kind, kind)},
                [], "finished")


def _resume(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    return Line(None, _("The server's clock was stopped: every waiting seat gets a fresh "
                        "timeout"), [], "resume")


def _aborted(e: dict[str, Any], name: str, names: list[str], before: Any) -> Line:
    return Line(None, _("The game was aborted"), [], "aborted")


_DESCRIBERS: dict[str, Any] = {
    "play": _play,
    "draw": _simple(gettext_lazy("%(name)s draws a card"), "draw"),
    "take": _simple(gettext_lazy("%(name)s takes %(count)d cards"), "take"),
    "pass": _simple(gettext_lazy("%(name)s passes"), "pass"),
    "agari": _simple(gettext_lazy("%(name)s goes out!"), "agari"),
    "color": _color,
    "chance": _chance,
    "decline": _decline,
    "dobon": _dobon,
    "return": _return,
    "timeout": _timeout,
    "start": _start,
    "finished": _finished,
    "aborted": _aborted,
    "resume": _resume,
    # trump Dobon
    "bid": _simple(gettext_lazy("%(name)s bids"), "bid", quiet=True),
    "auction_end": _simple(gettext_lazy("%(name)s wins the auction"), "auction_end"),
    "skip": _simple(gettext_lazy("%(name)s is skipped"), "skip"),
    "last_one": _simple(gettext_lazy("%(name)s: last one!"), "last_one"),
    "yaku": _simple(gettext_lazy("%(name)s shows a 役"), "yaku"),
    "reshuffle": _simple(gettext_lazy("The discards become the deck (%(count)d cards)"),
                         "reshuffle", quiet=True),
}


@dataclass(frozen=True)
class Moment:
    """One frame of the replay as the timeline shows it."""

    index: int
    time: float | None
    lines: list[Line]
    drawn: list[str]  # the cards drawn in this frame (hidden during play, shown now)


def moments_of(frames: list[Frame], names: list[str]) -> list[Moment]:
    moments = []
    for i, frame in enumerate(frames):
        before = frames[i - 1].table if i else None
        lines = [line for e in frame.events if (line := describe(e, names, before))]
        drawn = [c for e in frame.events if e.get("type") == "drawn" for c in e.get("cards", [])]
        moments.append(Moment(frame.index, frame.time, lines, drawn))
    return moments


def frame_payload(frame: Frame, moment: Moment, start: float | None) -> dict[str, Any]:
    """What the replay script needs for one step (JSON)."""
    elapsed = None if frame.time is None or start is None else round(frame.time - start, 1)
    return {
        "i": frame.index,
        "t": elapsed,
        "seat": frame.seat,
        "lines": [{"text": ln.text, "cards": ln.cards, "kind": ln.kind, "quiet": ln.quiet}
                  for ln in moment.lines],
        "drawn": moment.drawn,
        "table": frame.table,
    }
