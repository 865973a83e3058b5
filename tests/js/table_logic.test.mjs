// Unit tests of the table's pure logic (run by tests/test_js_units.py with `node --test`).
import assert from "node:assert/strict";
import test from "node:test";

import { cardPoints, handPoints, identical, sortCards } from "../../static/js/cards.js";
import { matchingPlay, reasonFor, tapResult } from "../../static/js/table/hand.js";
import { eventText } from "../../static/js/table/log.js";
import { caughtPlay, howItEnded, lateRefusal, settlementData, workedSums } from "../../static/js/table/settlement.js";
import { signed } from "../../static/js/table/strings.js";

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

// Issue 21: players read the rule in words; rule ids such as "(R4.1)" are for the rule
// book and the tests, not for a player's messages.
test("a dimmed card says why in words, without a rule id", () => {
  const reasons = [
    [reasonFor("R5", view({ turn: 1 }), 0), /番ではありません/],
    [reasonFor("B5", view({ pending_draw: 2, top: "R+2" }), 0), /ドロー累積には \+2 か ドロー4 しか/],
    [reasonFor("RS", view({ hand: ["RS"] }), 0), /記号カードで上がることはできません/],
    [reasonFor("B3", view({ hand: ["B3", "G4"] }), 0), /場のカードと合いません/],
  ];
  for (const [text, words] of reasons) {
    assert.match(text, words);
    assert.doesNotMatch(text, /R\d/);
  }
});

test("issue 21: the settlement's sentence, the caught card and R11's sum", () => {
  const name = (s) => ["alice", "bob", "carol"][s];
  const result = { kind: "dobon", winners: [1], payments: [[0, 1, 29]], deltas: [-29, 29, 0], hand_points: [20, 9, 0], rate: 1 };
  const data = { result, dobon: { target: 0, declarers: [1] }, lastPlay: { seat: 0, cards: ["Y9"], points: 9 } };
  assert.equal(howItEnded(data, name), "bobがaliceの黄9にドボン！");
  assert.deepEqual(caughtPlay(data), { target: 0, declarers: [1], cards: ["Y9"], points: 9 });
  const sums = workedSums(result, name);
  assert.equal(sums.total, "T = 20 + 9 + 0 = 29（全員の手札。ドボンされたカードは出した人の手札に戻して数える）");
  assert.deepEqual(sums.lines, ["alice → bob  29点（T × 1）"]);
  const agari = { kind: "agari", winners: [2], payments: [[0, 2, 24], [1, 2, 18]], hand_points: [12, 9, 0], rate: 2 };
  assert.deepEqual(workedSums(agari, name).lines, ["alice → carol  24点（12 × 2）", "bob → carol  18点（9 × 2）"]);
  assert.equal(howItEnded({ result: agari, lastPlay: { seat: 2, cards: ["G5"], points: 5 } }, name), "carolが緑5で上がり");
  assert.equal(signed(-85), "−85");
  assert.equal(signed(0), "±0");
  assert.equal(signed(7), "+7");
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

// Walk-through item 2: a colour tapped as a CPU dobon'd the wild reaches the server after
// the game ended; its "no game is running" is not an error next to the settlement.
test("a no_game refusal after the table shows the end is a late tap, not an error", () => {
  const noGame = { type: "error", code: "no_game", message: "No game is running in this room." };
  const finished = { state: { game: 3, view: { phase: "finished", seat: 0, legal_actions: [] } } };
  const between = { state: { game: null, view: null } };
  const running = { state: { game: 3, view: { phase: "choose", seat: 0 } } };
  assert.ok(lateRefusal(finished, noGame));
  assert.ok(lateRefusal(between, noGame));
  assert.ok(lateRefusal(finished, { ...noGame, code: "game_finished" }));
  assert.ok(!lateRefusal(running, noGame)); // the table thinks a game runs: say it
  assert.ok(!lateRefusal(finished, { ...noGame, code: "rate_limited" }));
  assert.ok(!lateRefusal({ state: null }, noGame));
});

// Walk-through item 1: a reload (or a late arrival) builds the settlement from the room's
// last result, which carries the final hands and the dobon'd play.
test("the settlement after a reload has the hands and the dobon'd play", () => {
  const result = { kind: "dobon", winners: [1], hand_points: [20, 9], deltas: [-29, 29],
    payments: [[0, 1, 29]], rate: 1, next_first_player: 1, players: [{ username: "alice" }, { username: "bob" }] };
  const app = { state: { game: null, view: null }, finishedHands: null, room: { last_result: {
    game: 4, result, url: "/games/4/", hands: [["G4", "B5", "R2"], ["R4", "B5"]],
    dobon: { target: 0, declarers: [1] }, last_play: { seat: 0, cards: ["Y9"], points: 9 } } } };
  const data = settlementData(app);
  assert.deepEqual(data.hands, [["G4", "B5", "R2"], ["R4", "B5"]]);
  assert.deepEqual(caughtPlay(data), { target: 0, declarers: [1], cards: ["Y9"], points: 9 });
  assert.match(howItEnded(data, (s) => data.names[s]), /bob.*alice.*9/);
});

test("T16.5 the standard auction's prompt says what a bid costs, in both languages", async () => {
  const { TRUMP_WORDS } = await import("../../static/js/table/trumpstrings.js");
  assert.match(TRUMP_WORDS.ja.auctionYou, /−50点/);
  assert.match(TRUMP_WORDS.ja.auctionYou, /入札した数がそのまま加点/);
  assert.match(TRUMP_WORDS.en.auctionYou, /−50/);
  assert.match(TRUMP_WORDS.en.auctionYou, /its bid is added to its points/);
});
