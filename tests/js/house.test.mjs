// Unit tests of the table's house-rule words (static/js/table/house.js), under Node.
import assert from "node:assert/strict";
import test from "node:test";

import { chanceText, drawLabel, expressionFor, rulesLine, sessionLines, turnText } from "../../static/js/table/house.js";
import { eventText } from "../../static/js/table/log.js";

test("H8.4: the expression in the engine's order (+, −, ×, ÷), operands in hand order", () => {
  assert.equal(expressionFor([2, 3], 5), "2 + 3 = 5");
  assert.equal(expressionFor([2, 9], 7), "9 \u2212 2 = 7");
  assert.equal(expressionFor([2, 3], 6), "2 \u00d7 3 = 6");
  assert.equal(expressionFor([20, 5], 4), "20 \u00f7 5 = 4");
  assert.equal(expressionFor([5, 20], 4), "20 \u00f7 5 = 4");
  assert.equal(expressionFor([1, 2, 3], 6), "1 + 2 + 3 = 6");
  assert.equal(expressionFor([2, 3], 7), null);
  assert.equal(expressionFor([0, 4], 0), "0 \u00d7 4 = 0");
});

test("G10: a preset by name, a custom set with its base and its changes", () => {
  assert.equal(rulesLine({ preset: "party", changed: { seven_zero: true } }), "パーティー");
  assert.equal(rulesLine({ preset: "custom", from: "party", changed: { hand_size: 5 } }), "カスタム（パーティーから）: 配り枚数 5枚");
  assert.equal(rulesLine({ preset: "custom", changed: { rate_cap: 4, blind_dobon: true } }), "カスタム: レート上限 ×4、ノーヒントドボン あり");
});

test("the chance prompt: H8's sum, H10's risk for dobon and return, none by default", () => {
  const view = { house_rules: { arithmetic_dobon: true }, hand: ["Y2", "G3"], last_play: { points: 6 }, rate: 1 };
  assert.match(chanceText(view, "dobon").why, /2 × 3 = 6/);
  const blind = { house_rules: { blind_dobon: true }, hand: ["R5"], rate: 2 };
  assert.match(chanceText(blind, "dobon").why, /40点/);
  assert.equal(chanceText(blind, "return").title, "ドボン返し？（ノーヒント）");
  assert.equal(chanceText({ house_rules: {}, hand: ["R5"] }, "dobon"), null);
  assert.equal(chanceText({ hand: ["R5"] }, "dobon"), null);
});

test("H7's draw button, H6's swap turn line", () => {
  assert.equal(drawLabel({ house_rules: { draw_until_playable: true } }, "1枚引く"), "出るまで引く");
  assert.equal(drawLabel({ house_rules: {} }, "1枚引く"), "1枚引く");
  const name = (s) => ["alice", "bob"][s];
  assert.equal(turnText({ phase: "swap", chooser: 0 }, 0, name), "交換相手を選んでください");
  assert.equal(turnText({ phase: "swap", chooser: 0 }, 1, name), "aliceが手札の交換相手を選んでいます");
  assert.equal(turnText({ phase: "turn", chooser: null }, 1, name), null);
});

test("every house event has words in the log, with H8's expression", () => {
  const name = (s) => ["alice", "bob", "carol"][s];
  const words = [
    { type: "choose_swap", seat: 0 }, { type: "swap", seat: 0, target: 2 },
    { type: "rotate", seat: 1, direction: -1 }, { type: "reshuffle", seat: 1, count: 12 },
    { type: "false_declaration", seat: 2, what: "dobon", hand: ["R5"], penalty: 20 },
    { type: "dobon_void", seat: 2 }, { type: "hand", seat: 0, to: 0, cards: ["R5", "B7"] },
    { type: "timeout", seat: 0, action: "swap" }, { type: "timeout", seat: 0, action: "draw_play" },
  ].map((e) => eventText(e, name));
  for (const w of words) assert.ok(!w.startsWith("（"), w);
  assert.equal(words[1], "aliceとcarolが手札を交換");
  assert.equal(words[3], "山札を作り直しました（12枚）");
  assert.match(eventText({ type: "dobon", seat: 1, target: 0, hand: ["Y2", "G3"], expression: "2 × 3 = 6" }, name), /2 × 3 = 6/);
});

test("H14: nothing without a session; progress; the last session's standings once over", () => {
  const lines = (room) => {
    globalThis.document = { createElement: () => ({ append() {}, dataset: {}, set textContent(t) { this.text = t; } }) };
    return sessionLines({ room });
  };
  assert.deepEqual(lines({ session: null }), []);
  assert.equal(lines({ session: { number: 2, games: 0, limit: 20, target: null, standings: [], last: { number: 1, games: 20, standings: [] } } }).length, 1);
  delete globalThis.document;
});
