// Event → one readable line, with names, in the page's language. Every event type the
// engine and the service emit has its own words (docs/engine-conventions.md).

import { cardsLabel } from "../cards.js";
import { eventWords, expressionSuffix, timeoutWords } from "./house.js";
import { T } from "./strings.js";

const MINOR = new Set(["turn", "choose"]);

export function eventText(event, nameOf) {
  const e = { ...event };
  if (e.cards) e.cards = cardsLabel(e.cards);
  if (e.top) e.top = cardsLabel([e.top]);
  if (e.color) e.colorName = T.colors[e.color] || e.color;
  if (e.kinds) e.kindsText = e.kinds.map((k) => T.chanceKinds[k] || k).join("・");
  if (e.action) e.actionText = T.timeoutActions[e.action] || timeoutWords(e.action) || e.action;
  const words = e.type === "play" && e.cut_in ? T.events.cutIn : T.events[e.type] || eventWords(e.type) || T.events.unknown;
  return words(e, nameOf) + expressionSuffix(event);
}

export function logEntry(event, nameOf) {
  const li = document.createElement("li");
  li.className = `log-${event.type}${MINOR.has(event.type) ? " log-minor" : ""}${event.to !== null && event.to !== undefined ? " log-private" : ""}`;
  const text = eventText(event, nameOf);
  // "you played …" → "You played …"; a username keeps its own spelling.
  li.textContent = text.startsWith(T.you) ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return li;
}
