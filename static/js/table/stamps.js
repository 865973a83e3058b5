// Stamps [スタンプ]: a fixed set of quick reactions (docs/protocol.md, `stamp`). A seated
// member sends one with a tap or Shift+1…8; everyone in the room sees it by the sender's
// seat for a moment. No free text. The server limits a seat to one per 1.5 s; the bar
// rests for as long after a send so that a double tap is not a refusal.

import { el } from "../dom.js";
import { T } from "./strings.js";

export const STAMPS = ["hello", "nice", "dobon", "sorry", "wait", "gg", "smile", "wow"];
const REST_MS = 1500;
const SHOW_MS = 2600;

/** May this page send stamps now: the room allows them and you sit in it. */
export function canStamp(app) {
  const room = app.room || (app.state && app.state.room);
  return Boolean(room && room.stamps !== false && room.seats && room.seats.some((s) => s && s.username === app.me));
}

export function renderStamps(app) {
  const bar = app.ui.stamps;
  if (!bar) return;
  const show = canStamp(app);
  bar.hidden = !show;
  if (!show || bar.childElementCount) {
    for (const b of bar.querySelectorAll("button")) b.disabled = Boolean(app.stampResting);
    return;
  }
  bar.append(...STAMPS.map((id, index) => {
    const b = el("button", `stamp stamp-${id}`, T.stamps[id]);
    b.type = "button";
    b.dataset.stamp = id;
    b.setAttribute("aria-keyshortcuts", `Shift+${index + 1}`);
    b.title = `${T.stampNames[id] || T.stamps[id]} (Shift+${index + 1})`;
    b.setAttribute("aria-label", T.stampNames[id] || T.stamps[id]);
    b.addEventListener("click", () => sendStamp(app, id));
    return b;
  }));
}

export function sendStamp(app, id) {
  if (!canStamp(app) || app.stampResting) return;
  if (!app.socket.send({ type: "stamp", stamp: id })) return;
  app.stampResting = true;
  renderStamps(app);
  setTimeout(() => { app.stampResting = false; renderStamps(app); }, REST_MS);
}

/** Where `username`'s stamp shows: their plate, your own bar, or the felt's top. */
function anchorOf(app, username) {
  if (username === app.me) return { box: app.ui["me-name"], named: false };
  const plate = [...app.ui.players.querySelectorAll(".seat-plate")].find((p) => p.dataset.name === username);
  return plate ? { box: plate, named: false } : { box: null, named: true };
}

export function showStamp(app, message) {
  const word = T.stamps[message.stamp];
  if (!word) return;
  const name = message.username === app.me ? T.you : message.username;
  const { box, named } = anchorOf(app, message.username);
  const bubble = el("span", "stamp-bubble", named ? `${name}: ${word}` : word);
  bubble.dataset.from = message.username;
  bubble.setAttribute("aria-hidden", "true"); // said once, in words, below
  const layer = app.ui["stamp-layer"];
  const felt = app.ui.felt.getBoundingClientRect();
  if (box) {
    const r = box.getBoundingClientRect();
    bubble.style.left = `${r.left + r.width / 2 - felt.left}px`;
    bubble.style.top = `${Math.max(0, r.top - felt.top)}px`;
  } else {
    bubble.style.left = "50%";
    bubble.style.top = "12%";
  }
  layer.append(bubble);
  setTimeout(() => bubble.remove(), SHOW_MS);
  app.say(T.stampSaid(name, T.stampNames[message.stamp] || word));
}
