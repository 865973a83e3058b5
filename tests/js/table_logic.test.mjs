// Unit tests of the table's pure logic (run by tests/test_js_units.py with `node --test`).
import assert from "node:assert/strict";
import test from "node:test";

import { cardPoints, handPoints, identical, sortCards } from "../../static/js/cards.js";
import { matchingPlay, reasonFor, tapResult } from "../../static/js/table/hand.js";
import { eventText } from "../../static/js/table/log.js";

test("R2 points: numbers at face value, actions 20, W 30, W+4 50, F 10", () => {
  assert.deepEqual(["R7", "BS", "GR", "Y+2", "W", "W+4", "RF"].map(cardPoints), [7, 20, 20, 20, 30, 50, 10]);
  assert.equal(handPoints(["G4", "B5"]), 9);
});

test("R2.2 identical: equal codes, or two F of any colours", () => {
  assert.ok(identical("R5", "R5"));
  assert.ok(identical("RF", "BF"));
  assert.ok(!identical("R5", "B5"));
});

test("the hand sorts by colour, then number or symbol, wilds last", () => {
  assert.deepEqual(sortCards(["W", "Y9", "R5", "B+2", "R+2", "W+4", "RF", "B3", "R0"]),
    ["R0", "R5", "R+2", "RF", "B3", "B+2", "Y9", "W", "W+4"]);
});

const view = (extra) => ({ phase: "turn", turn: 0, seat: 0, pending_draw: 0, top: "R7", hand: [], ...extra });

test("a card with a twin is selected first, played by a second tap; a lone card plays at once", () => {
  const legal = [{ type: "play", cards: ["R5"] }, { type: "play", cards: ["R5", "R5"] }, { type: "play", cards: ["W"] }];
  const app = { state: { view: view({ hand: ["R5", "R5", "W"], legal_actions: legal }) }, sortedHand: ["R5", "R5", "W"], selected: [] };
  assert.deepEqual(tapResult(app, 0), { select: [0] });
  assert.deepEqual(tapResult(app, 2), { action: { type: "play", cards: ["W"] } });
  app.selected = [0];
  assert.deepEqual(tapResult(app, 1), { select: [0, 1] });
  assert.deepEqual(tapResult(app, 0), { action: { type: "play", cards: ["R5"] } });
  app.selected = [0, 1];
  assert.deepEqual(tapResult(app, 1), { action: { type: "play", cards: ["R5", "R5"] } });
  assert.deepEqual(tapResult(app, 2), { action: { type: "play", cards: ["W"] } }); // not a twin: fresh tap
  assert.deepEqual(matchingPlay(legal, ["R5", "R5"]), { type: "play", cards: ["R5", "R5"] });
  assert.equal(matchingPlay(legal, ["R5", "W"]), null);
});

test("a dimmed card says why, citing the rule", () => {
  assert.match(reasonFor("R5", view({ turn: 1 }), 0), /番ではありません/);
  assert.match(reasonFor("B5", view({ pending_draw: 2, top: "R+2" }), 0), /R5\.1/);
  assert.match(reasonFor("RS", view({ hand: ["RS"] }), 0), /R8\.1/);
  assert.match(reasonFor("B3", view({ hand: ["B3", "G4"] }), 0), /R4\.1/);
});

test("every event type the engine and the service emit has words", () => {
  const name = (s) => ["alice", "bob"][s];
  const events = [
    { type: "start", seat: 0, top: "R7", rate: 1 }, { type: "play", seat: 0, cards: ["R5", "R5"], points: 10 },
    { type: "play", seat: 1, cards: ["Y3"], points: 3, cut_in: true }, { type: "draw", seat: 0, count: 1 },
    { type: "take", seat: 1, count: 4 }, { type: "drawn", seat: 0, to: 0, cards: ["G1"] }, { type: "pass", seat: 0 },
    { type: "color", seat: 0, color: "Y" }, { type: "turn", seat: 1 }, { type: "choose", seat: 0 },
    { type: "chance", seat: 1, to: 1, kinds: ["dobon"] }, { type: "decline", seat: 1, to: 1, timeout: true },
    { type: "agari", seat: 0 }, { type: "dobon", seat: 1, target: 0, hand: ["G4"] }, { type: "return", seat: 0, hand: [] },
    { type: "timeout", seat: 0, action: "draw_pass" }, { type: "finished", result: {} }, { type: "aborted", by: null },
  ];
  const lines = events.map((e) => eventText(e, name));
  for (const line of lines) assert.ok(line && !line.startsWith("（"), line);
  assert.equal(lines[1], "aliceが赤5・赤5を出した（10点）");
  assert.equal(lines[2], "bobがカットイン！ 黄3");
  assert.equal(lines[13], "bobがaliceにドボン！");
});
