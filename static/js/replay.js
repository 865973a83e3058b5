// Step-through replay of a finished game (templates/game/history/game.html).
// The server rebuilt every step through the rules engine (game/history/replay.py) and put
// them in #replay-data; this module only draws the table of the chosen step.
// Previous / next / play buttons, a slider, and the keys ← → Home End Space.

import { cardChip, cardChips } from "./cards.js";
import { el } from "./dom.js";

const PLAY_MS = 900;

function signed(n) {
  return n > 0 ? `+${n}` : n === 0 ? "±0" : `−${-n}`;
}

function renderCentre(table, labels) {
  const centre = el("div", "replay-centre");
  const top = el("div", "replay-top");
  top.append(el("span", "muted small", labels.top), cardChip(table.top));
  centre.append(top);
  const facts = el("dl", "replay-facts");
  const add = (name, value, testid) => {
    const box = el("div");
    box.append(el("dt", "", name));
    const dd = el("dd", "", value);
    if (testid) dd.dataset.testid = testid;
    box.append(dd);
    facts.append(box);
  };
  add(labels.colour, table.color ? labels.colors[table.color] : "—", "replay-colour");
  add(labels.direction, table.direction === 1 ? labels.clockwise : labels.counter, null);
  add(labels.deck, table.deck_count, "replay-deck");
  if (table.pending_draw) add(labels.stack, `+${table.pending_draw}`, "replay-stack");
  add(labels.phase, labels.phases[table.phase] ?? table.phase, "replay-phase");
  centre.append(facts);
  return centre;
}

function seatMarks(table, seat, labels) {
  const marks = [];
  if (table.turn === seat) marks.push(["turn", labels.turn]);
  if (table.chooser === seat) marks.push(["chooser", labels.chooser]);
  if (table.dobon && table.dobon.target === seat) marks.push(["target", labels.target]);
  if (table.dobon && table.dobon.declarers.includes(seat)) marks.push(["declarer", labels.declarer]);
  if (table.result && table.result.winners.includes(seat)) marks.push(["winner", labels.winner]);
  return marks;
}

function renderSeat(table, seat, data) {
  const item = el("li", "replay-seat");
  item.dataset.seat = String(seat);
  const marks = seatMarks(table, seat, data.labels);
  for (const [name] of marks) item.classList.add(`is-${name}`);
  const head = el("div", "replay-seat-head");
  head.append(el("span", "name", data.names[seat]));
  if (data.cpu[seat]) head.append(el("span", "badge badge-cpu", "CPU"));
  for (const [name, text] of marks) head.append(el("span", `badge badge-${name}`, text));
  const points = el("span", "muted small", `${table.hands[seat].length} · ${table.hand_points[seat]} ${data.labels.points}`);
  head.append(points);
  if (table.result) head.append(el("span", "points", signed(table.result.deltas[seat])));
  item.append(head);
  const hand = cardChips(table.hands[seat]);
  hand.dataset.testid = `replay-hand-${seat}`;
  item.append(hand);
  return item;
}

function renderLines(frame) {
  const box = el("ul", "replay-lines");
  for (const line of frame.lines) {
    const item = el("li", `line kind-${line.kind}${line.quiet ? " quiet" : ""}`, `${line.text} `);
    if (line.cards.length) item.append(cardChips(line.cards));
    box.append(item);
  }
  if (frame.drawn.length) {
    const item = el("li", "line quiet", "↳ ");
    item.append(cardChips(frame.drawn));
    box.append(item);
  }
  return box;
}

function setup(root) {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = data.frames;
  const tableBox = root.querySelector(".replay-table");
  const linesBox = root.querySelector(".replay-now");
  const slider = root.querySelector("#replay-slider");
  const stepOut = root.querySelector("#replay-step");
  const playButton = root.querySelector('[data-replay="play"]');
  let index = 0;
  let timer = null;

  slider.max = String(frames.length - 1);

  function show(next) {
    index = Math.max(0, Math.min(frames.length - 1, next));
    const frame = frames[index];
    const seats = el("ol", "replay-seats");
    for (let seat = 0; seat < frame.table.hands.length; seat += 1) {
      seats.append(renderSeat(frame.table, seat, data));
    }
    tableBox.replaceChildren(renderCentre(frame.table, data.labels), seats);
    tableBox.dataset.step = String(index);
    const when = frame.t === null ? "" : `${frame.t.toFixed(1)} s`;
    const head = el("p", "replay-when muted small", `${index + 1} / ${frames.length}${when ? " · " + when : ""}`);
    linesBox.replaceChildren(head, renderLines(frame));
    slider.value = String(index);
    stepOut.textContent = `${index + 1} / ${frames.length}`;
    if (index === frames.length - 1) stop();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = `▶ ${playButton.dataset.labelPlay}`;
    playButton.setAttribute("aria-pressed", "false");
  }

  function play() {
    if (timer !== null) return stop();
    if (index === frames.length - 1) show(0);
    timer = setInterval(() => show(index + 1), PLAY_MS);
    playButton.textContent = `⏸ ${playButton.dataset.labelPause}`;
    playButton.setAttribute("aria-pressed", "true");
  }

  const actions = {
    first: () => show(0),
    prev: () => show(index - 1),
    next: () => show(index + 1),
    last: () => show(frames.length - 1),
    play,
  };
  root.querySelectorAll("[data-replay]").forEach((button) => {
    button.addEventListener("click", () => {
      if (button.dataset.replay !== "play") stop();
      actions[button.dataset.replay]();
    });
  });
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof HTMLElement && target.matches("input, textarea, select") && target !== slider) return;
    const keys = { ArrowLeft: actions.prev, ArrowRight: actions.next, Home: actions.first, End: actions.last };
    if (keys[event.key]) {
      event.preventDefault();
      stop();
      keys[event.key]();
    } else if (event.key === " " && !(target instanceof HTMLButtonElement)) {
      event.preventDefault();
      play();
    }
  });
  show(0);
}

const root = document.getElementById("replay");
if (root) setup(root);
