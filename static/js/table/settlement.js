// After a game: every hand revealed with its points, each payment, the deltas × rate,
// the room standings, who starts next, and the owner's "next game" button.

import { cardElement } from "../cards.js";
import { el } from "../dom.js";
import { T } from "./strings.js";

/** {result, names, hands, url} for the game just finished, or the room's last one. */
export function settlementData(app) {
  const view = app.state && app.state.view;
  if (view && view.result) {
    const names = (app.state.players || []).map((p) => p.username);
    // The game's page exists as soon as the game is over (history's /games/<id>/).
    const url = app.state.game ? `/games/${app.state.game}/` : null;
    return { result: view.result, names, hands: view.revealed || [], url, game: app.state.game,
      match: matchOf(app, app.state.game) };
  }
  const last = app.room && app.room.last_result;
  if (!view && last && last.result) {
    const names = (last.result.players || []).map((p) => p.username);
    const cached = app.finishedHands && app.finishedHands.game === last.game ? app.finishedHands.hands : [];
    return { result: last.result, names, hands: cached, url: last.url || null, game: last.game,
      match: last.match || null };
  }
  return null;
}

/** The match `game` belonged to, as the room panel's last result says (or null). */
function matchOf(app, game) {
  const last = app.room && app.room.last_result;
  return last && last.game === game ? last.match || null : null;
}

export function renderSettlement(app) {
  const box = app.ui.settlement;
  const data = settlementData(app);
  box.hidden = !data;
  if (!data) {
    box.replaceChildren();
    return;
  }
  const { result, names, hands } = data;
  const name = (seat) => names[seat] || `#${seat + 1}`;
  const title = el("h2", "settle-title");
  title.id = "settlement-title";
  const kind = T.kinds[result.kind] || result.kind;
  title.textContent = result.kind === "deck_out" ? T.deckOut : T.winner(result.winners.map(name).join("・"), kind);
  const meta = el("p", "settle-meta", `${T.rateLine(result.rate || 1)} · ${T.nextFirst(name(result.next_first_player))}`);

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
    if (hands[seat]) {
      const cards = el("span", "settle-cards");
      cards.append(...hands[seat].map((c) => cardElement(c)));
      handCell.append(cards);
    }
    handCell.append(el("span", "settle-points", String(result.hand_points[seat])));
    const total = totals.get(name(seat));
    tr.append(who, handCell, el("td", delta > 0 ? "pos" : delta < 0 ? "neg" : "", T.points(delta)),
      el("td", "", total === undefined ? "—" : String(total)));
    body.append(tr);
  });
  table.append(thead, body);

  const payments = el("ul", "settle-payments");
  payments.setAttribute("aria-label", T.payments);
  for (const [payer, payee, points] of result.payments) payments.append(el("li", "", T.pays(name(payer), name(payee), points)));
  if (!result.payments.length) payments.append(el("li", "muted", T.noPayments));

  const foot = el("div", "settle-foot");
  if (app.isOwner && app.startUrl) {
    const next = el("button", "button primary big", T.nextGame);
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
  box.replaceChildren(title, meta, table, payments, foot);
}
