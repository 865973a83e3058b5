// The trump Dobon table (game_kind "trump_dobon", docs/trump-engine.md): the field card
// and its suit, the 2's obligation (au) and しばり's accumulation (standard), the auction,
// your hand and its buttons, dobon and the au chain, the return, and the settlement that
// explains the arithmetic. As for Dobon UNO, every clickable thing comes from
// view.legal_actions; the page explains a rule, it never judges one.

import { el } from "../dom.js";
import { SUIT_GLYPH, handValue, numberSum, sortTrump, suitName, trumpCard, trumpLabel, trumpShort } from "../trumpcards.js";
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

/** The seat whose play was dobon'd and that card (au: the latest play; standard: the
 * target), or null when the round did not end on a dobon. */
export function dobonnedCard(data) {
  const { result, lastPlay } = data;
  if (!["dobon", "return"].includes(result.kind)) return null;
  if (result.score_order === "low") {
    const target = result.target || [];
    return target.length ? { seat: lastPlay ? lastPlay.seat : null, cards: target } : null;
  }
  if (!lastPlay || !lastPlay.cards || !lastPlay.cards.length) return null;
  return { seat: lastPlay.seat, cards: lastPlay.cards };
}

/** One sentence: who dobon'd whom on which card, who returned it, or who went out. */
export function trumpHowItEnded(data, name) {
  const { result } = data;
  const names = (seats) => seats.map(name).join("・");
  const caught = dobonnedCard(data);
  if (caught) {
    const card = caught.cards.map(trumpShort).join(" ");
    if (result.score_order === "low") {
      return result.kind === "return" ? TT.howReturnStd(names(result.winners), names(result.losers), card)
        : TT.howDobon(names(result.winners), names(result.losers), card);
    }
    const chain = result.chain || [];
    const [winner] = result.winners;
    const [loser] = result.losers;
    if (chain.length <= 1) return TT.howDobon(name(winner), name(loser), card);
    if (result.kind === "return") return TT.howReturnAu(name(winner), name(loser), name(caught.seat), card);
    return TT.howChainAu(name(winner), name(loser), name(caught.seat), card, chain.length);
  }
  if (result.kind === "agari") return TT.howAgari[result.score_order === "low" ? "standard" : "au"](names(result.winners));
  return "";
}

const MINUS = "−";
const log2 = (n) => Math.round(Math.log2(n));

/** §T15 written out: the value sum of X, each factor named, and each payment. */
export function auWorkedSums(data, name) {
  const { result } = data;
  const points = result.hand_points;
  if (result.kind === "agari") {
    return result.payments.map(([payer, payee, amount]) => {
      const twos = points[payer] ? log2(amount / points[payer]) : 0;
      return TT.auStopLine(name(payer), name(payee), amount, points[payer], twos);
    });
  }
  if (!result.multiplier || !result.payments.length) return [];
  const [[payer, payee, amount]] = result.payments;
  const sum = amount / result.multiplier;
  const d = (result.chain || []).length;
  const twos = log2(result.multiplier) - d;
  const caught = dobonnedCard(data);
  const cardValue = sum - points[payee] - points[payer];
  const card = caught ? caught.cards.map(trumpShort).join(" ") : "?";
  return [
    TT.auSumLine(sum, [[name(payee), points[payee]], [name(payer), points[payer]]], card, cardValue),
    TT.auFactorLine(result.multiplier, twos, d),
    TT.auPayLine(name(payer), name(payee), amount, sum, result.multiplier),
  ];
}

/** Why a standard seat holds no cards and has base points 0 (§T16.1), or null. */
function emptyHandWhy(result, seat, hands) {
  if (result.hand_points[seat] !== 0 || !result.winners.includes(seat)) return null;
  if (result.kind === "agari") return TT.baseZero.agari;
  if (hands && hands[seat] && hands[seat].length) return TT.baseZero[result.kind] || null;
  return null;
}

/** §T16.3 for every seat, each term labelled: base points (or w × …), then each bonus by name. */
export function standardWorkedSums(data, name) {
  const { result, hands } = data;
  const lines = [];
  if (result.worst !== null && result.worst !== undefined) lines.push(TT.worstLine(result.worst));
  result.deltas.forEach((score, seat) => {
    const bonuses = (result.bonuses || []).filter(([s]) => s === seat);
    const loser = (result.losers || []).includes(seat);
    const terms = bonuses.map(([, bonus, p]) => ` ${p < 0 ? MINUS : "+"} ${TT.bonusNames[bonus] || bonus} ${Math.abs(p)}`).join("");
    let first;
    if (loser) {
      const part = result.kind === "return" ? result.worst * 6 : result.worst * result.winners.length * 2;
      const formula = result.kind === "return" ? TT.loserReturn(result.worst) : TT.loserDobon(result.worst, result.winners.length);
      first = terms ? `${formula} = ${part}` : formula;
    } else {
      const why = emptyHandWhy(result, seat, hands);
      first = `${TT.baseTerm} ${result.hand_points[seat]}${why ? TT.paren(why) : ""}`;
    }
    const total = terms || loser ? ` = ${signedNumber(score)}` : "";
    lines.push(`${name(seat)}: ${first}${terms}${total}`);
  });
  return lines;
}

function signedNumber(n) {
  return n < 0 ? `${MINUS}${-n}` : String(n);
}

/** Good and bad as the preset counts them: au higher is better, standard lower (§T16.3). */
export function deltaClass(delta, scoreOrder) {
  const better = scoreOrder === "low" ? delta < 0 : delta > 0;
  const worse = scoreOrder === "low" ? delta > 0 : delta < 0;
  return better ? "pos" : worse ? "neg" : "";
}

export function renderTrumpSettlement(app, data) {
  const { result, names, hands } = data;
  const name = (seat) => names[seat] || `#${seat + 1}`;
  const preset = result.score_order === "low" ? "standard" : "au";
  const title = el("h2", "settle-title");
  title.id = "settlement-title";
  const kind = TT.kinds[result.kind] || result.kind;
  title.textContent = result.winners.length ? TT.winner(result.winners.map(name).join("・"), kind) : TT.deckOut;
  const how = trumpHowItEnded(data, name);
  if (how) {
    title.textContent = how;
    title.dataset.testid = "settle-how";
  }
  const meta = el("p", "settle-meta", preset === "au" ? TT.settleAu : TT.settleStd);
  const match = matchOf(result, app);
  const caught = dobonnedCard(data);
  const table = el("table", "settle-table");
  const head = el("tr");
  for (const h of ["", preset === "au" ? TT.value : TT.base, TT.delta, TT.total]) head.append(el("th", "", h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  result.deltas.forEach((delta, seat) => {
    const tr = el("tr", result.winners.includes(seat) ? "winner" : "");
    const who = el("th", "settle-name", name(seat));
    who.scope = "row";
    const handCell = el("td", "settle-hand");
    const cards = el("span", "settle-cards");
    if (hands[seat] && hands[seat].length) cards.append(...sortTrump(hands[seat]).map((c) => trumpCard(c)));
    if (preset === "au" && caught && caught.seat === seat) {
      // The dobon'd card counts in the sum (§T15.3): show it in its player's hand.
      for (const c of caught.cards) {
        const card = trumpCard(c);
        card.classList.add("caught");
        card.title = TT.caughtCard;
        cards.append(card);
      }
    }
    if (cards.children.length) handCell.append(cards);
    handCell.append(el("span", "settle-points", String(result.hand_points[seat])));
    const note = preset === "standard" ? standardNote(result, seat, hands) : null;
    if (note) handCell.append(el("span", "settle-note muted", note));
    const total = match && match.totals ? match.totals[seat] : undefined;
    const totalClass = preset === "au" && total !== undefined && total < 0 ? "neg" : "";
    tr.append(who, handCell, el("td", deltaClass(delta, result.score_order), signedNumber(delta)),
      el("td", totalClass, total === undefined ? "—" : signedNumber(total)));
    body.append(tr);
  });
  table.append(thead, body);
  const parts = [title, meta, table];
  const sums = el("ul", "settle-payments");
  sums.dataset.testid = "trump-sums";
  const lines = preset === "au" ? auWorkedSums(data, name) : standardWorkedSums(data, name);
  for (const line of lines) sums.append(el("li", "", line));
  if (!lines.length) sums.append(el("li", "muted", preset === "au" ? TT.noPayments : TT.deckOut));
  parts.push(sums);
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

/** A standard row's word on its base points: a loser's are not counted; a declarer's
 * shown cards were put out, so it holds none (§T16.1, §T16.3). */
function standardNote(result, seat, hands) {
  if ((result.losers || []).includes(seat)) return TT.baseUnused;
  return emptyHandWhy(result, seat, hands);
}

export const trumpHandValue = handValue;
