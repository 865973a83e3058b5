// The felt: the other seats around the table in seating order (you at the bottom), the
// deck, the top card, the current colour, the direction and the open draw stack.

import { cardBack, cardElement, cardLabel, handPoints } from "../cards.js";
import { el } from "../dom.js";
import { handValue, trumpCard } from "../trumpcards.js";
import { T } from "./strings.js";

const RING = 2 * Math.PI * 20;

function ring() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 44 44");
  svg.setAttribute("class", "seat-ring");
  svg.setAttribute("aria-hidden", "true");
  const circle = document.createElementNS(ns, "circle");
  circle.setAttribute("cx", "22");
  circle.setAttribute("cy", "22");
  circle.setAttribute("r", "20");
  circle.setAttribute("stroke-dasharray", String(RING));
  svg.append(circle);
  return svg;
}

/** Set a seat's countdown ring: `fraction` of the clock left. */
export function setRing(plate, fraction) {
  const circle = plate && plate.querySelector(".seat-ring circle");
  if (circle) circle.setAttribute("stroke-dashoffset", String(RING * (1 - Math.max(0, Math.min(1, fraction)))));
}

/** Where seat `offset` (1 … n-1 after you, clockwise) sits on the oval, in percent. */
function place(offset, n, portrait = false) {
  const angle = Math.PI / 2 + (offset * 2 * Math.PI) / n;
  // On a tall, narrow felt (a phone) the side seats would sit level with the deck and
  // the top card and cover them: lift them into the empty band above the centre.
  const lift = portrait ? 22 * Math.abs(Math.cos(angle)) : 0;
  return { x: 50 + 44 * Math.cos(angle), y: 48 + 40 * Math.sin(angle) - lift };
}

function isPortrait(list) {
  const box = list.getBoundingClientRect();
  return box.height > box.width * 1.05;
}

/** Plates near the rim lean inwards, so that none hangs off the felt. */
function position(li, at) {
  li.style.left = `${at.x}%`;
  li.style.top = `${at.y}%`;
  li.dataset.edge = at.x < 25 ? "left" : at.x > 75 ? "right" : "middle";
}

function plate({ name, kind, count, online, acting, points, revealed, me, preset, total, rating }) {
  const li = el("li", `seat-plate${acting ? " acting" : ""}${me ? " seat-me" : ""}${online === false ? " offline" : ""}`);
  li.dataset.name = name;
  if (acting) li.append(ring());
  const head = el("span", "seat-head");
  const dot = el("span", `presence ${online === false ? "off" : online ? "on" : "unknown"}`);
  dot.title = online === false ? T.offline : T.online;
  head.append(dot, el("span", "seat-name", name));
  if (kind && kind !== "human") head.append(el("span", `kind kind-${kind}`, T[kind] || kind));
  li.append(head);
  // docs/ratings.md: "?" while provisional, else the number and its 級/段
  if (rating) li.append(el("span", "seat-rating", rating.label ? `${rating.text} ${rating.label}` : rating.text));
  if (count !== null && count !== undefined) {
    const hand = el("span", "seat-count");
    const backs = el("span", "seat-backs");
    for (let i = 0; i < Math.min(count, 5); i += 1) backs.append(cardBack(true));
    hand.append(backs, el("span", "seat-count-n", T.cards(count)));
    li.append(hand);
  }
  if (points !== null && points !== undefined) li.append(el("span", "seat-points", total ? String(points) : T.points(points)));
  if (revealed) {
    const shown = el("span", "seat-revealed");
    shown.dataset.seatHand = "revealed";
    const face = preset ? (c) => trumpCard(c) : (c) => cardElement(c);
    const value = preset ? handValue(revealed, preset) : handPoints(revealed);
    shown.append(...revealed.map(face), el("span", "seat-revealed-points", `${value}`));
    li.append(shown);
  }
  li.setAttribute("aria-label", `${name}${count !== null && count !== undefined ? `: ${T.cards(count)}` : ""}${acting ? ` (${T.acting})` : ""}${online === false ? ` (${T.offline})` : ""}`);
  return li;
}

export function renderSeats(app) {
  const { state, room } = app;
  const list = app.ui.players;
  const view = state && state.view;
  const online = app.online;
  const isOnline = (name) => (online ? online.has(name) : null);
  const plates = [];
  const portrait = isPortrait(list);
  if (view) {
    const n = view.players;
    const mine = view.seat === null || view.seat === undefined ? null : view.seat;
    const base = mine === null ? 0 : mine;
    const points = pointsByName(room);
    const ratings = ratingsByName(room);
    for (let seat = 0; seat < n; seat += 1) {
      const p = (state.players || []).find((x) => x.seat === seat) || { username: `#${seat + 1}` };
      const offset = (seat - base + n) % n;
      const actor = view.turn !== null ? view.turn : view.chooser;
      const shown = view.revealed && view.revealed[seat] && seat !== mine;
      // Trump views list [] for a seat that revealed nothing (yet): nothing to show.
      const revealed = shown && (!view.preset || view.revealed[seat].length) ? view.revealed[seat] : null;
      const li = plate({
        name: p.username, kind: p.kind, count: view.hand_counts[seat], online: p.kind === "cpu" ? true : isOnline(p.username),
        acting: actor === seat, points: points.get(p.username), me: seat === mine,
        revealed, preset: view.preset || null, total: Boolean(view.preset), rating: ratings.get(p.username),
      });
      li.dataset.seat = seat;
      if (seat === mine) continue; // you are the bar below the felt
      position(li, place(offset, n, portrait));
      plates.push(li);
    }
  } else if (room) {
    const n = room.seat_count;
    const myIndex = room.seats.findIndex((s) => s && s.username === app.me);
    const base = myIndex < 0 ? 0 : myIndex;
    room.seats.forEach((s, index) => {
      const offset = (index - base + n) % n;
      if (offset === 0 && myIndex >= 0) return;
      const li = s
        ? plate({ name: s.username, kind: s.kind, count: null, online: s.kind === "cpu" ? true : isOnline(s.username), points: s.points, total: room.game_kind === "trump_dobon", rating: s.rating })
        : plate({ name: T.free, count: null });
      if (!s) li.classList.add("seat-empty");
      position(li, place(offset, n, portrait));
      plates.push(li);
    });
  }
  list.replaceChildren(...plates);
}

function ratingsByName(room) {
  const map = new Map();
  if (room) for (const s of room.seats) if (s && s.rating) map.set(s.username, s.rating);
  return map;
}

function pointsByName(room) {
  const map = new Map();
  if (room) for (const s of room.seats) if (s) map.set(s.username, s.points);
  return map;
}

// What both games' centres share (trump.js draws its own on top of it): the centre shows
// only while there is a view, with the deck's back and count and the top card, drawn by
// `drawCard` (the game's own cards), on the pile. Returns the view, or null without one.
export function renderDeckAndPile(app, drawCard) {
  const view = app.state && app.state.view;
  const { ui } = app;
  ui.center.hidden = !view;
  if (!view) return null;
  const deck = el("span", "deck-stack");
  deck.append(cardBack(), el("span", "deck-count", `${T.deck} ${view.deck_count}`));
  ui.deck.replaceChildren(deck);
  const top = drawCard(view.top);
  top.classList.add("card-top");
  ui.pile.replaceChildren(top);
  return view;
}

export function renderCenter(app) {
  const view = renderDeckAndPile(app, cardElement);
  if (!view) return;
  const { ui } = app;
  ui.pile.setAttribute("aria-label", T.topCard(cardLabel(view.top)));
  const color = view.color;
  ui.color.className = `color-chip c-${color || "none"}`;
  ui.color.textContent = color ? `${T.colorNow}: ${T.colors[color]}` : T.noColor;
  ui.pile.className = `pile-top ring-${color || "none"}`;
  ui.direction.textContent = view.direction === 1 ? `↻ ${T.cw}` : `↺ ${T.ccw}`;
  ui.direction.className = `direction dir-${view.direction === 1 ? "cw" : "ccw"}`;
  ui.stack.hidden = !view.pending_draw;
  ui.stack.textContent = view.pending_draw ? T.stackFacing(view.pending_draw) : "";
}

// Where the "waiting for the game" pill may sit before a game (percent of the felt's
// height), best first: the middle band under the start button, above it, the centre.
const STATUS_SPOTS = [62, 34, 45, 70, 28, 55];

/** Before a game, put the status pill where it covers no seat plate (their names and
 * points), no sit prompt and no start button: on a phone the bottom seat's plate sat
 * under it. During a game the CSS keeps it at the bottom (your seat is the bar below). */
export function placeStatus(app) {
  const pill = app.ui.status;
  if (!pill) return;
  if (app.table.dataset.phase !== "waiting" || pill.hidden) {
    pill.style.top = "";
    return;
  }
  const felt = app.ui.felt;
  const others = [...felt.querySelectorAll(".seat-plate, .sit-prompt, .start-form > :not([hidden])")]
    .map((e) => e.getBoundingClientRect()).filter((b) => b.width && b.height);
  const clear = (a) => others.every((b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top);
  for (const spot of STATUS_SPOTS) {
    pill.style.top = `${spot}%`;
    if (clear(pill.getBoundingClientRect())) return;
  }
  pill.style.top = `${STATUS_SPOTS[0]}%`;
}
