// The trump Dobon table (game_kind "trump_dobon", docs/trump-engine.md): the field card
// and its suit, the 2's obligation (au) and しばり's accumulation (standard), the auction,
// your hand and its buttons, dobon and the au chain, the return, and the settlement that
// explains the arithmetic. As for Dobon UNO, every clickable thing comes from
// view.legal_actions; the page explains a rule, it never judges one.

import { el } from "../dom.js";
import { SUIT_GLYPH, handValue, numberOf, numberSum, sortTrump, suitName, trumpCard, trumpLabel, trumpShort } from "../trumpcards.js";
import { renderDeckAndPile } from "./felt.js";
import { fitHand } from "./hand.js";
import { T } from "./strings.js";
import { TT } from "./trumpstrings.js";

export const SUIT_KEYS = { 1: "S", 2: "H", 3: "D", 4: "C" };

function button(text, attrs, className) {
  const b = el("button", className, text);
  b.type = "button";
  for (const [k, v] of Object.entries(attrs)) b.setAttribute(k, v);
  return b;
}

function suitChip(suit) {
  const chip = el("span", `suit-chip s-${suit}`, `${SUIT_GLYPH[suit]} ${suitName(suit)}`);
  return chip;
}

// -- the centre -------------------------------------------------------------------------------

export function renderTrumpCenter(app) {
  const view = renderDeckAndPile(app, trumpCard);
  if (!view) return;
  const { ui } = app;
  ui.pile.className = "pile-top";
  ui.pile.setAttribute("aria-label", `${TT.field}: ${trumpLabel(view.top)}`);
  const suits = Array.isArray(view.suit) ? view.suit : view.suit ? [view.suit] : [];
  ui.color.className = "color-chip trump-suit";
  ui.color.replaceChildren(`${TT.fieldSuit}: `, ...suits.map(suitChip));
  ui.direction.textContent = view.preset === "standard" ? (view.direction === 1 ? `↻ ${T.cw}` : `↺ ${T.ccw}`) : "";
  ui.direction.className = `direction dir-${view.direction === 1 ? "cw" : "ccw"}`;
  ui.direction.hidden = view.preset !== "standard";
  const owed = view.pending_draw;
  ui.stack.hidden = !owed;
  ui.stack.textContent = !owed ? "" : view.preset === "au" ? TT.owe2(owed) : TT.shibari(owed);
  ui.stack.classList.toggle("shibari", Boolean(view.shibari));
}

// -- the hand ---------------------------------------------------------------------------------

function reasonFor(view) {
  if (view.phase === "auction") return TT.reasons.auction;
  if (view.phase !== "turn") return TT.reasons.waiting;
  if (view.turn !== view.seat) return TT.reasons.notYourTurn;
  if (view.pending_draw > 0) return view.preset === "au" ? TT.reasons.owe2 : TT.reasons.shibari;
  return TT.reasons.match;
}

export function renderTrumpHand(app, view) {
  const box = app.ui.hand;
  const hand = view && view.hand ? sortTrump(view.hand) : [];
  app.sortedHand = hand;
  const legal = (view && view.legal_actions) || [];
  const playable = new Set(legal.filter((a) => a.type === "play").map((a) => a.cards[0]));
  box.classList.toggle("hand-many", hand.length > 12);
  box.replaceChildren(...hand.map((code, index) => {
    const card = trumpCard(code, "button");
    card.dataset.index = index;
    const can = playable.has(code);
    card.dataset.playable = can ? "true" : "false";
    if (!can) {
      card.classList.add("dim");
      card.title = reasonFor(view);
      card.setAttribute("aria-description", card.title);
      card.addEventListener("contextmenu", (e) => { e.preventDefault(); app.toast(card.title); });
    }
    if (app.trumpChoice === code) {
      card.classList.add("selected");
      card.setAttribute("aria-pressed", "true");
    }
    if (app.pending) card.setAttribute("aria-disabled", "true");
    card.addEventListener("click", () => app.tapCard(index));
    return card;
  }));
  box.setAttribute("aria-label", `${T.yourHand} (${T.cards(hand.length)})`);
  fitHand(box);
}

/** A tap on card `index`: its one legal play goes at once; a card with several (an 8's
 * or a J's suit, a play with or without last one) opens the choice in the actions. */
export function trumpTap(app, index) {
  const view = app.state.view;
  const code = app.sortedHand[index];
  const plays = (view.legal_actions || []).filter((a) => a.type === "play" && a.cards[0] === code);
  if (!plays.length) return { refuse: reasonFor(view) };
  if (plays.length === 1) return { action: plays[0] };
  app.trumpChoice = app.trumpChoice === code ? null : code;
  return { rendered: true };
}

// -- the actions ------------------------------------------------------------------------------

function actionButton(app, action, kind, text, extra = "") {
  const b = button(text, { "data-action": kind }, `button act act-${kind}${extra}`);
  if (app.pending) b.disabled = true;
  b.addEventListener("click", () => app.act(action));
  return b;
}

function choicePanel(app, view, code) {
  const plays = (view.legal_actions || []).filter((a) => a.type === "play" && a.cards[0] === code);
  const box = el("div", "trump-choice");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", TT.chooseFor(trumpLabel(code)));
  box.append(el("p", "chance-title", TT.chooseFor(trumpShort(code))));
  const row = el("div", "swatches");
  for (const play of plays) {
    const suit = play.suit;
    const named = `${SUIT_GLYPH[suit]} ${suitName(suit)}`;
    const text = suit ? (play.last_one ? TT.playAsLast(named) : TT.playAs(named))
      : play.last_one ? TT.playLast : TT.playCard;
    const attrs = suit && !play.last_one ? { "data-suit": suit, "aria-keyshortcuts": String("SHDC".indexOf(suit) + 1) } : { "data-action": play.last_one ? "play-last" : "play" };
    const b = button(text, attrs, `button act swatch-suit${suit ? ` s-${suit}` : ""}${play.last_one ? " primary" : ""}`);
    if (app.pending) b.disabled = true;
    b.addEventListener("click", () => { app.trumpChoice = null; app.act(play); });
    row.append(b);
  }
  const cancel = button(TT.cancel, { "data-action": "clear" }, "button act act-clear");
  cancel.addEventListener("click", () => { app.trumpChoice = null; app.render(); });
  row.append(cancel);
  box.append(row);
  return box;
}

function chancePrompt(view, kind) {
  const box = el("div", `chance chance-${kind}`);
  box.setAttribute("role", "group");
  const title = el("p", "chance-title", kind === "dobon" ? TT.chanceDobon : TT.chanceReturn);
  let why;
  if (kind === "dobon") why = view.preset === "au" ? TT.whyDobonAu(numberSum(view.hand || []), trumpShort(view.top)) : TT.whyDobonStd;
  else why = view.preset === "au" ? TT.whyReturnAu : TT.whyReturnStd;
  const bar = el("span", "chance-bar");
  bar.dataset.role = "chance-bar";
  const row = el("div", "chance-buttons");
  box.append(title, el("p", "chance-why", why), bar, row);
  box.setAttribute("aria-label", `${title.textContent} ${why}`);
  return { box, row };
}

function bidForm(app, action) {
  const form = el("form", "trump-bid");
  form.dataset.testid = "bid-form";
  const id = "trump-bid-amount";
  const label = el("label", "", TT.bidLabel);
  label.htmlFor = id;
  const input = el("input", "bid-input");
  Object.assign(input, { id, type: "number", min: String(action.min), max: String(action.max), step: "1", value: app.lastBid || "1", inputMode: "numeric" });
  input.dataset.role = "bid-amount";
  const go = button(TT.bid, { "data-action": "bid" }, "button act act-bid primary");
  go.type = "submit";
  if (app.pending) go.disabled = true;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const amount = Number(input.value);
    if (!Number.isInteger(amount) || amount < action.min || amount > action.max) {
      app.toast(TT.bidLabel);
      return;
    }
    app.lastBid = String(amount);
    app.act({ type: "bid", amount });
  });
  form.append(el("p", "chance-title", TT.auctionYou), label, input, go);
  return form;
}

function auctionNote(app, view) {
  const a = view.auction;
  if (!a || !a.has_bid) return null;
  const done = a.has_bid.filter(Boolean).length;
  const text = [TT.auctionWait(done, a.has_bid.length)];
  if (a.mine !== null && a.mine !== undefined) text.push(TT.myBid(a.mine));
  return el("p", "trump-note", text.join(" · "));
}

export function renderTrumpActions(app, view) {
  const box = app.ui.actions;
  box.replaceChildren();
  if (!view || view.seat === null || view.seat === undefined) return;
  const legal = view.legal_actions || [];
  const find = (type) => legal.find((a) => a.type === type);
  if (view.phase === "auction") {
    const bid = find("bid");
    if (bid) box.append(bidForm(app, bid));
    const note = auctionNote(app, view);
    if (note) box.append(note);
    return;
  }
  if (app.trumpChoice && !legal.some((a) => a.type === "play" && a.cards[0] === app.trumpChoice)) app.trumpChoice = null;
  if (app.trumpChoice) box.append(choicePanel(app, view, app.trumpChoice));
  const chances = view.chances || [];
  const prompt = ["dobon", "return"].find((k) => chances.includes(k));
  if (prompt) {
    const { box: p, row } = chancePrompt(view, prompt);
    for (const d of legal.filter((a) => a.type === "dobon")) {
      const text = d.count ? TT.dobonCount(d.count) : TT.dobon;
      row.append(actionButton(app, d, d.count ? `dobon-${d.count}` : "dobon", text, " big danger-fill"));
    }
    if (find("return")) row.append(actionButton(app, find("return"), "return", TT.return, " big danger-fill"));
    if (find("decline")) row.append(actionButton(app, find("decline"), "decline", TT.decline));
    box.append(p);
  } else if (find("decline")) {
    box.append(actionButton(app, find("decline"), "decline", TT.decline));
  }
  if (find("yaku")) box.append(actionButton(app, find("yaku"), "yaku", TT.yaku, " primary"));
  if (find("last_one")) box.append(actionButton(app, find("last_one"), "last_one", TT.lastOne, " primary"));
  const draw = find("draw");
  if (draw) {
    const owed = view.pending_draw;
    const text = !owed ? TT.draw : view.preset === "au" ? TT.drawOwe(owed) : TT.take(owed);
    box.append(actionButton(app, draw, owed ? "take" : "draw", text, owed ? " primary" : ""));
  }
  if (view.chain && view.chain.length) {
    const names = view.chain.map((c) => TT.chainEntry(app.playerName(c.seat), c.kind)).join(" → ");
    box.append(el("p", "trump-note", `${TT.chain}: ${names}`));
  }
}

// -- the settlement ---------------------------------------------------------------------------

function matchOf(result, app) {
  return result.match || (app.room && app.room.match) || null;
}

export function renderTrumpSettlement(app, data) {
  const box = app.ui.settlement;
  const { result, names, hands } = data;
  const name = (seat) => names[seat] || `#${seat + 1}`;
  const preset = result.score_order === "low" ? "standard" : "au";
  const title = el("h2", "settle-title");
  title.id = "settlement-title";
  const kind = TT.kinds[result.kind] || result.kind;
  title.textContent = result.winners.length ? TT.winner(result.winners.map(name).join("・"), kind) : TT.deckOut;
  const meta = el("p", "settle-meta", preset === "au" ? TT.settleAu : TT.settleStd);
  const facts = [];
  if (result.multiplier) facts.push(TT.multiplier(result.multiplier));
  if (result.chain) facts.push(`${TT.chain}: ${result.chain.map(([s, k]) => TT.chainEntry(name(s), k)).join(" → ")}`);
  if (result.worst !== null && result.worst !== undefined) facts.push(TT.worst(result.worst));
  const match = matchOf(result, app);
  const table = el("table", "settle-table");
  const head = el("tr");
  for (const h of ["", preset === "au" ? TT.value : TT.base, TT.delta, TT.total]) head.append(el("th", "", h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  const bonusesOf = (seat) => (result.bonuses || []).filter(([s]) => s === seat);
  result.deltas.forEach((delta, seat) => {
    const tr = el("tr", result.winners.includes(seat) ? "winner" : "");
    const who = el("th", "settle-name", name(seat));
    who.scope = "row";
    const handCell = el("td", "settle-hand");
    if (hands[seat] && hands[seat].length) {
      const cards = el("span", "settle-cards");
      cards.append(...sortTrump(hands[seat]).map((c) => trumpCard(c)));
      handCell.append(cards);
    }
    handCell.append(el("span", "settle-points", String(result.hand_points[seat])));
    for (const [, bonus, points] of bonusesOf(seat)) {
      handCell.append(el("span", "settle-bonus", `${TT.bonusNames[bonus] || bonus} ${points > 0 ? "+" : ""}${points}`));
    }
    const good = preset === "au" ? delta > 0 : delta < 0;
    const bad = preset === "au" ? delta < 0 : delta > 0;
    const total = match && match.totals ? match.totals[seat] : undefined;
    tr.append(who, handCell, el("td", good ? "pos" : bad ? "neg" : "", `${delta > 0 ? "+" : ""}${delta}`),
      el("td", total !== undefined && total < 0 ? "neg" : "", total === undefined ? "—" : String(total)));
    body.append(tr);
  });
  table.append(thead, body);
  const parts = [title, meta];
  if (facts.length) parts.push(el("p", "settle-meta", facts.join(" · ")));
  parts.push(table);
  if (preset === "au") {
    const payments = el("ul", "settle-payments");
    for (const [payer, payee, points] of result.payments) {
      payments.append(el("li", "", `${TT.pays(name(payer), name(payee), points)}  (${auSum(result, hands, payer, points)})`));
    }
    if (!result.payments.length) payments.append(el("li", "muted", TT.noPayments));
    parts.push(payments);
  } else {
    const sums = el("ul", "settle-payments");
    for (const line of standardSums(result, name)) sums.append(el("li", "", line));
    if (sums.children.length) parts.push(sums);
  }
  if (match) {
    const line = el("p", "settle-match");
    line.dataset.testid = "trump-match-line";
    const rounds = match.settings && match.settings.rounds;
    const played = match.over ? (rounds || match.round) : match.round - 1;
    const text = [TT.matchLine(played, rounds)];
    if (match.over) {
      const champions = (match.standing || []).filter(([, place]) => place === 1).map(([s]) => name(s));
      text.push(TT.matchOver, TT.champion(champions.join("・")));
      if (preset === "au") text.push(TT.belowZero);
      text.push(TT.nextRoundNewMatch);
    }
    line.textContent = text.join(" ");
    parts.push(line);
  }
  return parts;
}

/** §T15 written out for one payment: a stop's V × 2^t, a chain's X × 2^t × 2^d. */
function auSum(result, hands, payer, points) {
  if (result.multiplier) return `${points / result.multiplier} × ${result.multiplier}`;
  const hand = hands[payer] || [];
  const twos = hand.filter((c) => numberOf(c) === 2).length;
  return `${handValue(hand, "au")} × 2^${twos}`;
}

/** §T16.3 for each loser: w × winners × 2 (dobon) or w × 6 (return), then bonuses. */
function standardSums(result, name) {
  const lines = [];
  if (result.worst === null || result.worst === undefined) return lines;
  for (const seat of result.losers || []) {
    const bonus = (result.bonuses || []).filter(([s]) => s === seat).reduce((t, [, , p]) => t + p, 0);
    const part = result.deltas[seat] - bonus;
    const formula = result.kind === "return" ? `${result.worst} × 6` : `${result.worst} × ${result.winners.length} × 2`;
    lines.push(`${name(seat)}: ${formula} = ${part}${bonus ? ` ${bonus > 0 ? "+" : "−"} ${Math.abs(bonus)} = ${result.deltas[seat]}` : ""}`);
  }
  return lines;
}

export const trumpHandValue = handValue;
