// After a game: every hand revealed with its points, each payment, the deltas × rate,
// the room standings, who starts next, and the owner's "next game" button.

import { cardElement, cardsLabel, handPoints } from "../cards.js";
import { el } from "../dom.js";
import { sessionLines } from "./house.js";
import { T, signed } from "./strings.js";
import { renderTrumpSettlement } from "./trump.js";
import { TT } from "./trumpstrings.js";

/** {result, names, hands, url} for the game just finished, or the room's last one. */
export function settlementData(app) {
  const view = app.state && app.state.view;
  if (view && view.result) {
    const names = (app.state.players || []).map((p) => p.username);
    // The game's page exists as soon as the game is over (history's /games/<id>/).
    const url = app.state.game ? `/games/${app.state.game}/` : null;
    return { result: view.result, names, hands: view.revealed || [], url, game: app.state.game,
      match: matchOf(app, app.state.game), dobon: view.dobon, lastPlay: view.last_play };
  }
  const last = app.room && app.room.last_result;
  if (!view && last && last.result) {
    const names = (last.result.players || []).map((p) => p.username);
    // The server's last result carries the final hands and the dobon'd play of a finished
    // game (public once it is over); what this tab kept is the fallback.
    const kept = app.finishedHands && app.finishedHands.game === last.game ? app.finishedHands : {};
    return { result: last.result, names, hands: last.hands || kept.hands || [], url: last.url || null,
      game: last.game, match: last.match || null, dobon: last.dobon || kept.dobon,
      lastPlay: last.last_play || kept.lastPlay };
  }
  return null;
}

/** The game on show is over: its settlement, or no game at all. */
export function gameOver(app) {
  const view = app.state && app.state.view;
  return Boolean(app.state) && (!view || view.phase === "finished");
}

/** A refusal that only says the game is over ("no_game", "game_finished") when the table
 * already shows that: a late tap (a colour picked as a CPU dobon'd the wild), not news to
 * show next to the settlement. */
export function lateRefusal(app, message) {
  return ["no_game", "game_finished"].includes(message && message.code) && gameOver(app);
}

/** The match `game` belonged to, as the room panel's last result says (or null). */
function matchOf(app, game) {
  const last = app.room && app.room.last_result;
  return last && last.game === game ? last.match || null : null;
}

/** The dobon'd play, when the game ended on one (§R9, §R10): who, on whom, on which cards. */
export function caughtPlay(data) {
  const { result, dobon, lastPlay } = data;
  if (!dobon || !lastPlay || !["dobon", "return"].includes(result.kind)) return null;
  if (lastPlay.seat !== dobon.target || !lastPlay.cards || !lastPlay.cards.length) return null;
  return { target: dobon.target, declarers: dobon.declarers || [], cards: lastPlay.cards, points: lastPlay.points };
}

/** One sentence: who dobon'd whom on which card (or who returned it, or went out). */
export function howItEnded(data, name) {
  const caught = caughtPlay(data);
  const { result } = data;
  if (caught) {
    const who = caught.declarers.map(name).join("・");
    const card = cardsLabel(caught.cards);
    return result.kind === "return" ? T.howReturn(name(caught.target), who, card) : T.howDobon(who, name(caught.target), card);
  }
  if (result.kind === "agari" && data.lastPlay && data.lastPlay.cards) {
    return T.howAgari(name(result.winners[0]), cardsLabel(data.lastPlay.cards));
  }
  return "";
}

/** §R11 written out with this game's numbers, as the game's page does (history/present.py). */
export function workedSums(result, name) {
  const rate = result.rate || 1;
  const points = result.hand_points;
  if (result.kind === "deck_out") return { total: "", lines: [] };
  if (result.kind === "agari") {
    const winner = result.winners[0];
    const lines = result.payments.map(([payer, payee, amount]) =>
      T.paysTimes(name(payer), name(payee), amount, `${points[payer]} × ${rate}`));
    return { total: "", lines, winner };
  }
  const sum = points.reduce((a, b) => a + b, 0);
  const total = T.sumT(`${points.join(" + ")} = ${sum}`);
  const lines = result.payments.map(([payer, payee, amount]) => T.paysTimes(name(payer), name(payee), amount, `T × ${rate}`));
  return { total, lines };
}

export function renderSettlement(app) {
  const box = app.ui.settlement;
  const data = settlementData(app);
  box.hidden = !data;
  if (!data) {
    box.replaceChildren();
    return;
  }
  if (data.result.score_order) {  // a trump Dobon round (docs/trump-engine.md, §T20.7)
    // As for Dobon UNO: the sentence, then the next-round button, then the arithmetic.
    const [title, ...rest] = renderTrumpSettlement(app, data);
    box.replaceChildren(title, settlementFoot(app, data), ...rest);
    return;
  }
  const { result, names, hands } = data;
  const name = (seat) => names[seat] || `#${seat + 1}`;
  const title = el("h2", "settle-title");
  title.id = "settlement-title";
  const kind = T.kinds[result.kind] || result.kind;
  title.textContent = result.kind === "deck_out" ? T.deckOut : T.winner(result.winners.map(name).join("・"), kind);
  // The title says what happened in a sentence when it can: who dobon'd whom, on which card.
  const how = howItEnded(data, name);
  if (how) {
    title.textContent = how;
    title.dataset.testid = "settle-how";
  }
  const meta = el("p", "settle-meta", `${T.rateLine(result.rate || 1)} · ${T.nextFirst(name(result.next_first_player))}`);
  const caught = caughtPlay(data);

  const table = el("table", "settle-table");
  const head = el("tr");
  for (const h of ["", T.handPoints, T.delta, T.total]) head.append(el("th", "", h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  const totals = new Map();
  if (app.room) for (const s of app.room.standings || app.room.seats.filter(Boolean)) totals.set(s.username, s.points);
  result.deltas.forEach((delta, seat) => {
    const tr = el("tr", result.winners.includes(seat) ? "winner" : "");
    const who = el("th", "settle-name", name(seat));
    who.scope = "row";
    const handCell = el("td", "settle-hand");
    const points = result.hand_points[seat];
    const counted = caught && caught.target === seat && hands[seat]
      && handPoints(hands[seat]) + caught.points === points;
    if (hands[seat]) {
      const cards = el("span", "settle-cards");
      cards.append(...hands[seat].map((c) => cardElement(c)));
      if (counted) {
        // The dobon'd play counts back into its player's hand (§R11.2): show it there.
        for (const c of caught.cards) {
          const card = cardElement(c);
          card.classList.add("caught");
          card.title = T.caughtCard;
          cards.append(card);
        }
      }
      handCell.append(cards);
    }
    const sum = counted ? `${handPoints(hands[seat])} + ${caught.points} = ${points}` : String(points);
    const pointsEl = el("span", "settle-points", sum);
    if (counted) pointsEl.title = T.caughtCard;
    handCell.append(pointsEl);
    const total = totals.get(name(seat));
    tr.append(who, handCell, el("td", delta > 0 ? "pos" : delta < 0 ? "neg" : "", T.points(delta)),
      el("td", "", total === undefined ? "—" : signed(total)));
    body.append(tr);
  });
  table.append(thead, body);

  const payments = el("ul", "settle-payments");
  payments.setAttribute("aria-label", T.payments);
  const sums = workedSums(result, name);
  for (const line of sums.lines) payments.append(el("li", "", line));
  if (!result.payments.length) payments.append(el("li", "muted", T.noPayments));
  const totalLine = el("p", "settle-sum", sums.total);
  totalLine.dataset.testid = "settle-sum";
  totalLine.hidden = !sums.total;
  const foot = settlementFoot(app, data);
  box.replaceChildren(title, foot, table, totalLine, payments, ...sessionLines(app), meta);
}

/** The owner's next-game button, the match's results and the game's record. */
function settlementFoot(app, data) {
  const foot = el("div", "settle-foot");
  if (app.isOwner && app.startUrl) {
    const next = el("button", "button primary big", data.result.score_order ? TT.nextRound : T.nextGame);
    next.type = "button";
    next.dataset.testid = "next-game";
    if (app.starting) next.disabled = true;
    next.addEventListener("click", () => app.startNextGame());
    foot.append(next);
  } else {
    foot.append(el("p", "muted", T.waitOwner));
  }
  if (data.match && data.match.over) {
    const results = el("a", "button settle-link", T.matchResults);
    results.href = data.match.url;
    results.dataset.testid = "match-results";
    foot.append(results);
  }
  if (data.url) {
    const a = el("a", "settle-link", T.history);
    a.href = data.url;
    foot.append(a);
  }
  return foot;
}
