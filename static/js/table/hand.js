// Your hand and what you can do now. Every clickable thing comes from the server's
// legal_actions; the page only explains why a card is dimmed, it never judges a rule.

import { cardElement, cardLabel, handPoints, identical, isNumber, sortCards } from "../cards.js";
import { chanceText, drawLabel, swapPrompt } from "./house.js";
import { T } from "./strings.js";

function button(text, attrs = {}, className = "button") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  for (const [k, v] of Object.entries(attrs)) b.setAttribute(k, v);
  return b;
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

/** The legal play whose cards are exactly `cards` (the given order first: it matters for F). */
export function matchingPlay(legal, cards) {
  const plays = legal.filter((a) => a.type === "play");
  return plays.find((a) => a.cards.join() === cards.join()) || plays.find((a) => sameCards(a.cards, cards)) || null;
}

/** Why a card cannot be played now: an explanation of the rules, not a judgement. */
export function reasonFor(code, view, mine) {
  if (view.phase !== "turn") return T.reasons.waiting;
  if (view.turn !== mine) return T.reasons.notYourTurn;
  if (view.pending_draw > 0) return view.top === "W+4" ? T.reasons.stack4 : T.reasons.stack;
  const twins = view.hand.filter((c) => identical(c, code)).length;
  if (twins === view.hand.length && !isNumber(code)) return T.reasons.goOut;
  return T.reasons.match;
}

export function renderHand(app, view) {
  const box = app.ui.hand;
  const hand = view && view.hand ? sortCards(view.hand) : [];
  app.sortedHand = hand;
  const legal = (view && view.legal_actions) || [];
  const playable = new Set(legal.filter((a) => a.type === "play").flatMap((a) => a.cards));
  const cutIn = view && view.chances && view.chances.includes("cut_in");
  box.replaceChildren(...hand.map((code, index) => {
    const el = cardElement(code, "button");
    el.dataset.index = index;
    const can = playable.has(code);
    el.dataset.playable = can ? "true" : "false";
    if (!can) {
      el.classList.add("dim");
      el.title = reasonFor(code, view, view.seat);
      el.setAttribute("aria-description", el.title);
      // A long press (the context menu on touch screens) tells the reason too.
      el.addEventListener("contextmenu", (e) => { e.preventDefault(); app.toast(el.title); });
    } else if (cutIn && view.turn !== view.seat) {
      el.classList.add("cutin");
    }
    if (app.selected.includes(index)) {
      el.classList.add("selected");
      el.setAttribute("aria-pressed", "true");
    }
    // Not `disabled`: a disabled button drops the keyboard focus; taps are ignored meanwhile.
    if (app.pending) el.setAttribute("aria-disabled", "true");
    el.addEventListener("click", () => app.tapCard(index));
    return el;
  }));
  box.setAttribute("aria-label", `${T.yourHand} (${T.cards(hand.length)})`);
  fitHand(box);
}

/** Overlap the cards just enough to fit the width, never hiding a card's corner index;
 * when one row would hide more than half of each card, the hand goes onto two rows (or
 * more), so that every card stays on screen whatever the hand's size (issue 21: at 14
 * cards the last ones were cut off without a sign). */
export function fitHand(box) {
  const cards = [...box.querySelectorAll(".card")];
  box.classList.remove("hand-rows");
  box.style.gridTemplateColumns = "";
  if (!cards.length) return;
  const width = cards[0].offsetWidth;
  const room = box.clientWidth - 16;
  const stepFor = (n) => (n > 1 ? Math.min(width + 6, (room - width) / (n - 1)) : width);
  let rows = 1;
  while (rows < 4 && stepFor(Math.ceil(cards.length / rows)) < width * 0.5) rows += 1;
  const perRow = Math.ceil(cards.length / rows);
  const step = Math.max(stepFor(perRow), width * 0.5);
  box.style.setProperty("--step", `${step}px`);
  box.dataset.rows = String(rows);
  if (rows > 1) {
    box.classList.add("hand-rows");
    // The last column is a whole card wide: the row ends with a card seen in full.
    box.style.gridTemplateColumns = `repeat(${perRow - 1}, ${step}px) ${width}px`;
  }
}

/** What a tap on card `index` does. A lone playable card plays at once. A card that
 * could go down with a twin (§R2.2) is selected first; tapping its twins adds them, and
 * tapping a selected card again plays the selection (as does the play button). */
export function tapResult(app, index) {
  const view = app.state.view;
  const code = app.sortedHand[index];
  const legal = view.legal_actions || [];
  const chosen = app.selected.map((i) => app.sortedHand[i]);
  if (app.selected.includes(index)) {
    const play = matchingPlay(legal, chosen);
    return play ? { action: play } : { select: app.selected.filter((i) => i !== index) };
  }
  if (chosen.length && identical(chosen[0], code)) return { select: [...app.selected, index] };
  const single = matchingPlay(legal, [code]);
  const multi = legal.some((a) => a.type === "play" && a.cards.length > 1 && a.cards.some((c) => identical(c, code)));
  if (multi) return { select: [index] };
  if (single) return { action: single };
  return { refuse: reasonFor(code, view, view.seat) };
}

function chancePrompt(app, view, kind) {
  const box = document.createElement("div");
  box.className = `chance chance-${kind}`;
  box.setAttribute("role", "group");
  const title = document.createElement("p");
  title.className = "chance-title";
  const why = document.createElement("p");
  why.className = "chance-why";
  const mine = handPoints(view.hand || []);
  if (kind === "dobon") {
    title.textContent = T.chanceDobon;
    why.textContent = T.whyDobon(mine, view.last_play ? view.last_play.points : "?");
  } else if (kind === "return") {
    title.textContent = T.chanceReturn;
    const declarer = view.dobon && view.dobon.declarers && view.dobon.declarers[0];
    const theirs = declarer !== undefined && view.revealed && view.revealed[declarer] ? handPoints(view.revealed[declarer]) : mine;
    why.textContent = T.whyReturn(mine, theirs);
  } else {
    title.textContent = T.chanceCutIn;
    why.textContent = T.whyCutIn(cardLabel(view.top));
  }
  const house = chanceText(view, kind); // §H8's arithmetic, §H10's risk
  if (house) {
    if (house.title) title.textContent = house.title;
    why.textContent = house.why;
    if (house.blind) box.classList.add("chance-blind");
  }
  const bar = document.createElement("span");
  bar.className = "chance-bar";
  bar.dataset.role = "chance-bar";
  const row = document.createElement("div");
  row.className = "chance-buttons";
  box.append(title, why, bar, row);
  box.setAttribute("aria-label", `${title.textContent} ${why.textContent}`);
  return { box, row };
}

function actionButton(app, action, kind, text, extraClass = "") {
  const b = button(text, { "data-action": kind }, `button act act-${kind}${extraClass}`);
  if (app.pending) b.disabled = true;
  b.addEventListener("click", () => app.act(action));
  return b;
}

export function renderActions(app, view) {
  const box = app.ui.actions;
  box.replaceChildren();
  if (!view || view.seat === null || view.seat === undefined) return;
  const legal = view.legal_actions || [];
  const find = (type) => legal.find((a) => a.type === type);
  const chances = view.chances || [];
  const prompt = ["dobon", "return"].find((k) => chances.includes(k)) || (chances.includes("cut_in") && view.turn !== view.seat ? "cut_in" : null);
  if (prompt) {
    const { box: p, row } = chancePrompt(app, view, prompt);
    if (find("dobon")) row.append(actionButton(app, find("dobon"), "dobon", T.dobon, " big danger-fill"));
    if (find("return")) row.append(actionButton(app, find("return"), "return", T.return, " big danger-fill"));
    if (find("decline")) row.append(actionButton(app, find("decline"), "decline", T.decline));
    box.append(p);
  } else if (find("decline")) {
    box.append(actionButton(app, find("decline"), "decline", T.decline));
  }
  const swap = swapPrompt(app, view, actionButton); // §H6.4
  if (swap) box.append(swap);
  const colors = legal.filter((a) => a.type === "color");
  if (colors.length) {
    const row = document.createElement("div");
    row.className = "swatches";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", T.youChoose);
    for (const action of colors) {
      const b = button(T.colors[action.color], { "data-color": action.color, "aria-keyshortcuts": String("RBGY".indexOf(action.color) + 1) }, `swatch c-${action.color}`);
      if (app.pending) b.disabled = true;
      b.addEventListener("click", () => app.act(action));
      row.append(b);
    }
    box.append(row);
  }
  const draw = find("draw");
  if (draw) {
    box.append(view.pending_draw > 0
      ? actionButton(app, draw, "take", T.take(view.pending_draw), " primary")
      : actionButton(app, draw, "draw", drawLabel(view, T.draw)));
  }
  if (find("pass")) box.append(actionButton(app, find("pass"), "pass", T.pass));
  if (app.selected.length) {
    const cards = app.selected.map((i) => app.sortedHand[i]);
    const play = matchingPlay(legal, cards);
    const b = button(T.playSelected(cards.length), { "data-action": "play" }, "button act act-play primary");
    b.disabled = !play || app.pending;
    b.addEventListener("click", () => play && app.act(play));
    const clear = button(T.clearSelection, { "data-action": "clear" }, "button act act-clear");
    clear.addEventListener("click", () => app.clearSelection());
    box.append(b, clear);
  }
}
