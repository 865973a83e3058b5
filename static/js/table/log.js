// Event → one readable line, with names, in the page's language. Every event type the
// engine and the service emit has its own words (docs/engine-conventions.md).

import { cardsLabel } from "../cards.js";
import { eventWords, expressionSuffix, timeoutWords } from "./house.js";
import { SUIT_GLYPH, numberOf, trumpCardsLabel, trumpShort } from "../trumpcards.js";
import { T } from "./strings.js";
import { TT } from "./trumpstrings.js";

const MINOR = new Set(["turn", "choose"]);

/** A trump Dobon event's words (game_kind "trump_dobon"); an 8 names a suit, and in
 * standard a J too. */
function trumpText(event, nameOf, preset) {
  const e = { ...event };
  const naming = preset === "standard" ? [8, 11] : [8];
  const named = e.type === "play" && e.cards && naming.includes(numberOf(e.cards[0])) && e.suit;
  if (named) e.suitText = (Array.isArray(e.suit) ? e.suit : [e.suit]).map((s) => SUIT_GLYPH[s]).join("");
  if (e.cards) e.cards = trumpCardsLabel(e.cards);
  if (e.hand) e.hand = trumpCardsLabel(e.hand);
  if (e.top) e.top = trumpShort(e.top);
  if (e.kinds) e.kindsText = e.kinds.map((k) => T.chanceKinds[k] || k).join("・");
  if (e.action) e.actionText = TT.timeoutActions[e.action] || e.action;
  return (TT.events[e.type] || TT.events.unknown)(e, nameOf);
}

/** `trump`: false for Dobon UNO, else the trump preset ("au" or "standard"). */
export function eventText(event, nameOf, trump = false) {
  if (trump) return trumpText(event, nameOf, trump);
  const e = { ...event };
  if (e.cards) e.cards = cardsLabel(e.cards);
  if (e.top) e.top = cardsLabel([e.top]);
  if (e.color) e.colorName = T.colors[e.color] || e.color;
  if (e.kinds) e.kindsText = e.kinds.map((k) => T.chanceKinds[k] || k).join("・");
  if (e.action) e.actionText = T.timeoutActions[e.action] || timeoutWords(e.action) || e.action;
  const words = e.type === "play" && e.cut_in ? T.events.cutIn : T.events[e.type] || eventWords(e.type) || T.events.unknown;
  return words(e, nameOf) + expressionSuffix(event);
}

export function logEntry(event, nameOf, trump = false) {
  const li = document.createElement("li");
  li.className = `log-${event.type}${MINOR.has(event.type) ? " log-minor" : ""}${event.to !== null && event.to !== undefined ? " log-private" : ""}`;
  const text = eventText(event, nameOf, trump);
  // "you played …" → "You played …"; a username keeps its own spelling.
  li.textContent = text.startsWith(T.you) ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return li;
}
