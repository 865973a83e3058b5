// Playing cards for trump Dobon (TRUMP-RULES.md §T2), drawn by the page like cards.js
// draws Dobon UNO's: a white face, the rank (A, 2–10, J, Q, K) in both corners with the
// suit's shape, a big suit in the middle, and the suit's name as a mark. Four suit colours
// (♠ black, ♥ red, ♦ blue, ♣ green) and four shapes: neither colour nor shape alone is
// the only cue. Codes: "S1" … "C13", "JK" (the joker, standard only).
// Styles: static/css/cards.css (.tcard).

import { el } from "./dom.js";
import { LANG } from "./table/strings.js";

export const SUIT_ORDER = "SHDC";
export const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const SUIT_NAME = {
  ja: { S: "スペード", H: "ハート", D: "ダイヤ", C: "クラブ" },
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs" },
};

export function isJoker(code) { return code === "JK"; }
export function suitOf(code) { return isJoker(code) ? null : code[0]; }
export function numberOf(code) { return isJoker(code) ? 0 : Number(code.slice(1)); }
export function rankOf(code) {
  if (isJoker(code)) return "JK";
  const n = numberOf(code);
  return RANK[n] || String(n);
}
export function suitName(suit) { return SUIT_NAME[LANG][suit] || suit; }

/** "D12" → "♦Q", "JK" → "Joker". */
export function trumpLabel(code) {
  if (isJoker(code)) return LANG === "ja" ? "ジョーカー" : "joker";
  return LANG === "ja" ? `${suitName(suitOf(code))}の${rankOf(code)}` : `${rankOf(code)} of ${suitName(suitOf(code))}`;
}

export function trumpShort(code) {
  return isJoker(code) ? "JK" : `${SUIT_GLYPH[suitOf(code)]}${rankOf(code)}`;
}

export function trumpCardsLabel(cards) { return cards.map(trumpShort).join(" "); }

/** Suit, then number (jokers last): how a hand is held. */
export function sortTrump(cards) {
  const key = (c) => (isJoker(c) ? 99 : SUIT_ORDER.indexOf(c[0]) * 20 + numberOf(c));
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** au's value (§T15.1: A J Q K 10) and standard's base points (§T16.1: 10+ count 10, JK 0). */
export function cardValue(code, preset) {
  if (isJoker(code)) return 0;
  const n = numberOf(code);
  if (preset === "au") return n === 1 || n >= 11 ? 10 : n;
  return Math.min(n, 10);
}

export function handValue(cards, preset) { return cards.reduce((s, c) => s + cardValue(c, preset), 0); }

/** The sum of the numbers as a dobon counts them (A 1, J 11, Q 12, K 13; JK 0). */
export function numberSum(cards) { return cards.reduce((s, c) => s + numberOf(c), 0); }

function part(className, text) {
  const node = el("span", className, text);
  node.setAttribute("aria-hidden", "true");
  return node;
}

/** A face-up playing card; `tag` "button" for the hand. */
export function trumpCard(code, tag = "span") {
  const node = document.createElement(tag);
  const suit = suitOf(code);
  node.className = `card tcard s-${suit || "JK"}`;
  node.dataset.card = code;
  const glyph = suit ? SUIT_GLYPH[suit] : "★";
  const rank = isJoker(code) ? "JK" : rankOf(code);
  const corner = el("span", "tcard-corner");
  corner.setAttribute("aria-hidden", "true");
  corner.append(el("span", "tcard-rank", rank), el("span", "tcard-suit", glyph));
  const end = corner.cloneNode(true);
  end.classList.add("tcard-corner-end");
  node.append(corner, part("tcard-pip", isJoker(code) ? "🃏" : glyph), end);
  node.append(part("card-mark", suit ? suitName(suit) : "JOKER"));
  if (tag === "button") {
    node.type = "button";
    node.setAttribute("aria-label", trumpLabel(code));
  } else {
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", trumpLabel(code));
  }
  return node;
}

/** A small chip for lists (the replay). */
export function trumpChip(code) {
  const node = el("span", `card-chip tchip s-${suitOf(code) || "JK"}`, trumpShort(code));
  node.title = trumpLabel(code);
  node.dataset.card = code;
  return node;
}
