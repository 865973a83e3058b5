// Cards drawn by the page, no image files, in two sizes:
// - the face (`cardElement`, `cardBack`): a coloured face, a big number or symbol in the
//   middle, a corner index that stays readable when cards overlap, and the colour's name
//   as a mark so that colour is never the only cue (the table, the landing page);
// - the chip (`cardChip`, `cardChips`): a small coloured tile with the glyph, for lists
//   (the replay, the history pages). game/templatetags/history.py renders the same chip
//   markup on the server from the same GLYPH map (tests/game/test_card_glyphs.py).
// Styles: static/css/cards.css.

import { el } from "./dom.js";
import { LANG, T } from "./table/strings.js";
import { trumpChip } from "./trumpcards.js";

const COLOR_ORDER = "RBGY";
const FACE_ORDER = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "F"];
/** The glyph drawn for a face that is not a digit (a wild's face is its whole code). */
export const GLYPH = { S: "⊘", R: "⇄", "+2": "+2", F: "F", W: "W", "W+4": "+4" };

export function isWild(code) { return code === "W" || code === "W+4"; }
export function colorOf(code) { return isWild(code) ? null : code[0]; }
export function faceOf(code) { return isWild(code) ? code : code.slice(1); }
export function isNumber(code) { return !isWild(code) && /^\d$/.test(faceOf(code)); }

/** Points as R2 counts them. */
export function cardPoints(code) {
  if (code === "W") return 30;
  if (code === "W+4") return 50;
  const face = faceOf(code);
  if (face === "F") return 10;
  return /^\d$/.test(face) ? Number(face) : 20;
}

export function handPoints(cards) { return cards.reduce((sum, c) => sum + cardPoints(c), 0); }

/** §R2.2: two F of any colours are identical; otherwise the codes must be equal. */
export function identical(a, b) {
  return a === b || (faceOf(a) === "F" && faceOf(b) === "F");
}

function sortKey(code) {
  if (isWild(code)) return [4, code === "W" ? 0 : 1];
  return [COLOR_ORDER.indexOf(code[0]), FACE_ORDER.indexOf(faceOf(code))];
}

/** Colour, then number or symbol (wilds last). */
export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
}

export function cardLabel(code) {
  if (code === "W") return T.wild;
  if (code === "W+4") return T.wild4;
  const face = faceOf(code);
  return T.label(T.colors[code[0]], T.symbols[face] || face);
}

/** "R5" → "5", "BS" → "⊘", "W+4" → "+4". */
export function glyphOf(code) {
  const face = faceOf(code);
  return GLYPH[face] ?? face;
}

export function cardsLabel(cards) { return cards.map(cardLabel).join(LANG === "ja" ? "・" : ", "); }

function part(className, text) {
  const node = el("span", className, text);
  node.setAttribute("aria-hidden", "true");
  return node;
}

/** A face-up card; `tag` "button" for the hand. */
export function cardElement(code, tag = "span") {
  const el = document.createElement(tag);
  const color = colorOf(code);
  const face = faceOf(code);
  const kind = isWild(code) ? (code === "W" ? "wild" : "wild4") : face === "F" ? "force" : isNumber(code) ? "num" : "act";
  el.className = `card c-${color || "W"} k-${kind}`;
  el.dataset.card = code;
  if (face === "6" || face === "9") el.classList.add("underlined"); // 6 and 9 upside down
  const glyph = glyphOf(code);
  el.append(part("card-corner", glyph), part("card-pip", glyph), part("card-corner card-corner-end", glyph));
  el.append(part("card-mark", color ? T.colors[color] : "W"));
  if (tag === "button") {
    el.type = "button";
    el.setAttribute("aria-label", cardLabel(code));
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardLabel(code));
  }
  return el;
}

/** The back of a card (the deck, an opponent's hand). */
export function cardBack(small = false) {
  const el = document.createElement("span");
  el.className = `card card-back${small ? " card-mini" : ""}`;
  el.setAttribute("aria-hidden", "true");
  el.append(part("card-back-logo", "DOBON"));
  return el;
}

/** A small chip: `<span class="card-chip card-chip--R" title="R5" data-card="R5">5</span>`. */
export function cardChip(code) {
  // Trump Dobon's codes (S1 … C13, JK) share no first letter with Dobon UNO's.
  if (code === "JK" || /^[SHDC]\d/.test(code)) return trumpChip(code);
  const node = el("span", `card-chip card-chip--${colorOf(code) || "W"}`, glyphOf(code));
  node.title = code;
  node.dataset.card = code;
  return node;
}

/** A row of chips. */
export function cardChips(codes) {
  const row = el("span", "card-chips");
  for (const code of codes) row.append(cardChip(code));
  return row;
}
