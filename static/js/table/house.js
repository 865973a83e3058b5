// House rules at the table (HOUSE-RULES.md; docs/engine-conventions.md "House rules"):
// the rules chip, the 7's swap prompt (§H6.4), what a dobon chance means under
// four-operation (§H8) and blind dobon (§H10), the words of the new events, and the
// session (§H14). Like hand.js it never judges a rule: what may be done comes from
// view.legal_actions; this module only explains it. Its words are game/house_text.py's
// (kept in step with the gettext catalog as strings.js says at its top).

import { cardPoints } from "../cards.js";
import { el } from "../dom.js";
import { LANG } from "./strings.js";

const MINUS = "\u2212", TIMES = "\u00d7", DIVIDE = "\u00f7";

const ja = {
  presets: { standard: "スタンダード", party: "パーティー", classic: "トランプドボン", competitive: "競技", custom: "カスタム" },
  customFrom: (p) => `カスタム（${p}から）`,
  rules: "ルール",
  names: {
    hand_size: "配り枚数", cut_in: "カットイン", stacking: "ドロー累積", stack_cut_in: "累積中カットイン",
    action_finish: "記号上がり", mixed_color_multi: "色違い重ね出し", seven_zero: "セブン・ゼロ",
    draw_until_playable: "出るまで引く", arithmetic_dobon: "四則演算ドボン", number_only_dobon: "数字ドボン",
    blind_dobon: "ノーヒントドボン", multi_dobon: "複数ドボン", reshuffle: "山札の作り直し",
    rate_cap: "レート上限", session_games: "対局ゲーム数", session_target: "対局の規定点",
  },
  values: {
    identical: "同じカード", same_number: "同数字", off: "なし", standard: "標準", cross: "相互累積",
    all: "ダブロン", first: "早い者勝ち", nearest: "頭ハネ", on: "あり", none: "なし",
  },
  cards: (n) => `${n}枚`, games: (n) => `${n}ゲーム`, target: (n) => `±${n}点`,
  swapTitle: "7: 手札を交換する相手を選んでください",
  swapWhy: "選んだ人とあなたの手札を全部入れ替えます（時間切れなら次の人）",
  swapWith: (name, n) => `${name}と交換（${n}枚）`,
  choosingSwap: (name) => `${name}が手札の交換相手を選んでいます`, youSwap: "交換相手を選んでください",
  whyArithmetic: (expr) => `四則演算: ${expr}`,
  blindTitle: "ドボン？（ノーヒント）", blindReturnTitle: "ドボン返し？（ノーヒント）",
  blindWhy: (penalty) => `ドボンできるかは表示されません。間違えると手札を公開し、ほかの全員に${penalty}点ずつ払い、このゲームのドボン権を失います`,
  drawUntil: "出るまで引く",
  keys: [["1〜8", "7のあと: 手札を交換する相手を選ぶ（セブン・ゼロ）"]],
  events: {
    choose_swap: (e, n) => `${n(e.seat)}が交換相手を選んでいます`,
    swap: (e, n) => `${n(e.seat)}と${n(e.target)}が手札を交換`,
    rotate: (e, n) => `${n(e.seat)}の0: 手札が${e.direction === 1 ? "時計回り" : "反時計回り"}に1つずつ移動`,
    hand: (e) => `あなたの新しい手札: ${e.cards}`,
    reshuffle: (e) => `山札を作り直しました（${e.count}枚）`,
    false_declaration: (e, n) => `${n(e.seat)}の誤${e.what === "return" ? "ドボン返し" : "ドボン"}！ ほかの全員に${e.penalty}点ずつ`,
    dobon_void: (e, n) => `${n(e.seat)}のドボンは頭ハネで無効`,
  },
  timeoutActions: { swap: "次の人と交換", draw_play: "出るまで引いて出した", play: "引いたカードを出した" },
  session: (number, games, limit) => `対局${number}: ${games}${limit ? `/${limit}` : ""}ゲーム`,
  sessionTarget: (t) => `±${t}点で終了`,
  sessionEnded: (number, games) => `対局${number}が終わりました（${games}ゲーム）`,
  place: (p) => `${p}位`,
};

const en = {
  presets: { standard: "Standard", party: "Party", classic: "Classic", competitive: "Competitive", custom: "Custom" },
  customFrom: (p) => `Custom (from ${p})`,
  rules: "Rules",
  names: {
    hand_size: "hand size", cut_in: "cut-in", stacking: "stacking", stack_cut_in: "cut-in on stacks",
    action_finish: "action-card finish", mixed_color_multi: "mixed-colour multi-play", seven_zero: "7-0",
    draw_until_playable: "draw until playable", arithmetic_dobon: "four-operation dobon",
    number_only_dobon: "number-only dobon", blind_dobon: "blind dobon", multi_dobon: "several dobons",
    reshuffle: "reshuffle", rate_cap: "rate cap", session_games: "session games", session_target: "session target",
  },
  values: {
    identical: "identical", same_number: "same number", off: "off", standard: "standard", cross: "cross",
    all: "all win", first: "first", nearest: "nearest", on: "on", none: "none",
  },
  cards: (n) => `${n} cards`, games: (n) => `${n} games`, target: (n) => `±${n} pts`,
  swapTitle: "7: choose whom to swap hands with",
  swapWhy: "Your whole hand and theirs change places (on timeout: the next player)",
  swapWith: (name, n) => `Swap with ${name} (${n} card${n === 1 ? "" : "s"})`,
  choosingSwap: (name) => `${name} is choosing whom to swap with`, youSwap: "Choose whom to swap with",
  whyArithmetic: (expr) => `four operations: ${expr}`,
  blindTitle: "Dobon? (blind)", blindReturnTitle: "Return the dobon? (blind)",
  blindWhy: (penalty) => `Nobody is told whether a dobon is possible. A wrong one shows your hand, pays ${penalty} to every other player and loses your dobon rights for this game`,
  drawUntil: "Draw until playable",
  keys: [["1–8", "after a 7: choose whom to swap hands with (7-0)"]],
  events: {
    choose_swap: (e, n) => `${n(e.seat)} is choosing whom to swap with`,
    swap: (e, n) => `${n(e.seat)} swapped hands with ${n(e.target)}`,
    rotate: (e, n) => `${n(e.seat)}'s 0: every hand moved one seat ${e.direction === 1 ? "clockwise" : "counter-clockwise"}`,
    hand: (e) => `Your new hand: ${e.cards}`,
    reshuffle: (e) => `The discards were reshuffled into the deck (${e.count} card${e.count === 1 ? "" : "s"})`,
    false_declaration: (e, n) => `${n(e.seat)}'s false ${e.what === "return" ? "return" : "dobon"}! Pays ${e.penalty} to every other player`,
    dobon_void: (e, n) => `${n(e.seat)}'s dobon is void (nearest wins)`,
  },
  timeoutActions: { swap: "swapped with the next player", draw_play: "drew until playable and played", play: "played the drawn card" },
  session: (number, games, limit) => `Session ${number}: ${games}${limit ? `/${limit}` : ""} games`,
  sessionTarget: (t) => `ends at ±${t}`,
  sessionEnded: (number, games) => `Session ${number} is over (${games} game${games === 1 ? "" : "s"})`,
  place: (p) => `#${p}`,
};

export const H = LANG === "en" ? en : ja;

function valueText(key, value) {
  if (typeof value === "boolean") return value ? H.values.on : H.values.off;
  if (value === null || value === undefined) return H.values.none;
  if (key === "hand_size") return H.cards(value);
  if (key === "rate_cap") return `×${value}`;
  if (key === "session_games") return H.games(value);
  if (key === "session_target") return H.target(value);
  return H.values[value] || String(value);
}

/** The compact line naming a rule set: "パーティー", "カスタム（パーティーから）: 配り枚数 5枚". */
export function rulesLine(house) {
  if (!house) return "";
  const label = house.preset === "custom" && house.from ? H.customFrom(H.presets[house.from]) : H.presets[house.preset] || house.preset;
  const changes = Object.entries(house.changed || {}).map(([k, v]) => `${H.names[k] || k} ${valueText(k, v)}`);
  return house.preset === "custom" && changes.length ? `${label}: ${changes.join("、")}` : label;
}

/** The rules chip in the table's bar, linking to their explanations. */
export function renderRulesChip(app) {
  const house = app.room && app.room.house;
  let chip = app.ui["house-rules"];
  if (!chip) {
    const bar = app.table.querySelector(".tbar");
    if (!bar) return;
    chip = el("a", "tbar-chip rules-chip");
    chip.dataset.role = "house-rules";
    chip.dataset.testid = "table-rules";
    chip.href = "/how-to-play/#house-rules";
    chip.target = "_blank";
    chip.rel = "noopener";
    (app.ui.rate || bar.firstChild).after(chip);
    app.ui["house-rules"] = chip;
  }
  chip.hidden = !house;
  if (!house) return;
  const line = rulesLine(house);
  chip.textContent = H.presets[house.preset] || house.preset;
  chip.dataset.preset = house.preset;
  chip.title = `${H.rules}: ${line}`;
  chip.setAttribute("aria-label", `${H.rules}: ${line}`);
}

/** §H8.4's expression of a hand's points making `value`, in the engine's order. */
export function expressionFor(points, value) {
  if (points.length === 2) {
    const [a, b] = points;
    const big = Math.max(a, b), small = Math.min(a, b);
    if (a + b === value) return `${a} + ${b} = ${value}`;
    if (big - small === value) return `${big} ${MINUS} ${small} = ${value}`;
    if (a * b === value) return `${a} ${TIMES} ${b} = ${value}`;
    if (b && a % b === 0 && a / b === value) return `${a} ${DIVIDE} ${b} = ${value}`;
    if (a && b % a === 0 && b / a === value) return `${b} ${DIVIDE} ${a} = ${value}`;
    return null;
  }
  const sum = points.reduce((s, p) => s + p, 0);
  return sum === value ? `${points.join(" + ")} = ${value}` : null;
}

/** The title and reason of a dobon or return chance under §H8/§H10, or null (as today). */
export function chanceText(view, kind) {
  const rules = view.house_rules || {};
  if (kind !== "dobon" && kind !== "return") return null;
  if (rules.blind_dobon) {
    const title = kind === "return" ? H.blindReturnTitle : H.blindTitle;
    return { title, why: H.blindWhy(20 * (view.rate || 1)), blind: true };
  }
  if (rules.arithmetic_dobon && kind === "dobon" && view.last_play) {
    const expr = expressionFor((view.hand || []).map(cardPoints), view.last_play.points);
    if (expr) return { title: null, why: H.whyArithmetic(expr) };
  }
  return null;
}

/** The draw button's words: §H7 draws until a card can be played. */
export function drawLabel(view, plain) {
  return view.house_rules && view.house_rules.draw_until_playable ? H.drawUntil : plain;
}

/** Who is on the move, when it is the 7's swap choice (§H6.4); else null. */
export function turnText(view, mine, name) {
  if (view.phase !== "swap" || view.chooser === null || view.chooser === undefined) return null;
  return view.chooser === mine ? H.youSwap : H.choosingSwap(name(view.chooser));
}

/** The swap prompt: one button per target seat from legal_actions, keys 1–8. */
export function swapPrompt(app, view, actionButton) {
  const swaps = (view.legal_actions || []).filter((a) => a.type === "swap");
  if (!swaps.length) return null;
  const box = el("div", "chance chance-swap");
  box.setAttribute("role", "group");
  const title = el("p", "chance-title", H.swapTitle);
  const why = el("p", "chance-why", H.swapWhy);
  const bar = el("span", "chance-bar");
  bar.dataset.role = "chance-bar";
  const row = el("div", "chance-buttons");
  swaps.forEach((action, i) => {
    const count = (view.hand_counts || [])[action.target];
    const b = actionButton(app, action, "swap", H.swapWith(app.playerName(action.target), count));
    b.dataset.target = String(action.target);
    b.dataset.key = String(i + 1);
    b.setAttribute("aria-keyshortcuts", String(i + 1));
    row.append(b);
  });
  box.append(title, why, bar, row);
  box.setAttribute("aria-label", `${H.swapTitle} ${H.swapWhy}`);
  return box;
}

/** Words for the house events (null: not a house event). */
export function eventWords(type) {
  return H.events[type] || null;
}

export function timeoutWords(action) {
  return H.timeoutActions[action] || null;
}

/** What the log adds to a dobon or return under §H8: its expression. */
export function expressionSuffix(event) {
  return event.expression ? ` (${event.expression})` : "";
}

/** A live event worth a toast or a spoken line: reshuffles, swaps, rotations, false
 * declarations (the log has them too). Returns the text or null. */
export function noticeFor(event, name) {
  if (["reshuffle", "swap", "rotate", "false_declaration"].includes(event.type)) {
    return H.events[event.type](event, name);
  }
  return null;
}

/** §H14: the session's progress (and the last session's final standings when it just
 * ended), for the settlement box. Empty without sessions. */
export function sessionLines(app) {
  const session = app.room && app.room.session;
  if (!session) return [];
  const box = el("div", "settle-session");
  box.dataset.testid = "session";
  const last = session.last;
  if (last && session.games === 0) {
    box.append(el("p", "settle-session-title", H.sessionEnded(last.number, last.games)));
    const list = el("ol", "settle-session-standings");
    for (const row of last.standings || []) list.append(el("li", "", `${H.place(row.place)} ${row.username} ${row.points}`));
    box.append(list);
  }
  if (session.number) {
    const parts = [H.session(session.number, session.games, session.limit)];
    if (session.target) parts.push(H.sessionTarget(session.target));
    box.append(el("p", "muted", parts.join(" · ")));
  }
  return [box];
}
