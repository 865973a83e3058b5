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

// Issue 33 item 1: trump settlements a player can follow. The views below are real: each
// is `Game.view(None)` of a finished round played through the engine from a fixed set-up
// (tests/rules/trump/helpers.py), trimmed to what the settlement reads.
const TRUMP_VIEWS = {
  // au · 0:["D8" "S10" "H10"] 1:["C3" "H5"] · field "D6" · 0 plays "D8" (♦); 1 dobons (3 + 5 = 8); 0 declines
  au: {"result":{"kind":"dobon","winners":[1],"losers":[0],"payments":[[0,1,72]],"scores":[-72,72],"deltas":[-72,72],"score_order":"high","hand_points":[20,8],"chain":[[1,"dobon"]],"multiplier":2,"target":null,"worst":null,"bonuses":null,"next_first_player":1,"rate":1},"revealed":[["S10","H10"],["C3","H5"]],"last_play":{"seat":0,"cards":["D8"]},"dobon":null},
  // au, §T15.7 (e): 0:["C4" "S13" "H2" "D5"] 1:["S2" "D2"] · field "C9" · 0 plays "C4"; 1 dobons
  auTwos: {"result":{"kind":"dobon","winners":[1],"losers":[0],"payments":[[0,1,400]],"scores":[-400,400],"deltas":[-400,400],"score_order":"high","hand_points":[17,4],"chain":[[1,"dobon"]],"multiplier":16,"target":null,"worst":null,"bonuses":null,"next_first_player":1,"rate":1},"revealed":[["S13","H2","D5"],["S2","D2"]],"last_play":{"seat":0,"cards":["C4"]},"dobon":null},
  // au stop, §T15.7 (b): 0:["H7"] 1:["S13" "D3"] 2:["C2" "H8" "D12"] · field "H4" · 0 plays "H7"
  auStop: {"result":{"kind":"agari","winners":[0],"losers":[1,2],"payments":[[1,0,13],[2,0,40]],"scores":[53,-13,-40],"deltas":[53,-13,-40],"score_order":"high","hand_points":[0,13,20],"chain":null,"multiplier":null,"target":null,"worst":null,"bonuses":null,"next_first_player":0,"rate":1},"revealed":[[],["S13","D3"],["C2","H8","D12"]],"last_play":{"seat":0,"cards":["H7"]},"dobon":null},
  // au, §T15.7 (h) chain [1, 0]: 0:["D10" "S3" "H7"] 1:["C4" "H6"] 2:["S5" "C5"] · field "D6" · 0 plays "D10",
  // 1 dobons, 0 returns (3 + 7 = 10), 2 lets its dobon go
  auReturn: {"result":{"kind":"return","winners":[0],"losers":[1],"payments":[[1,0,120]],"scores":[120,-120,0],"deltas":[120,-120,0],"score_order":"high","hand_points":[10,10,10],"chain":[[1,"dobon"],[0,"return"]],"multiplier":4,"target":null,"worst":null,"bonuses":null,"next_first_player":0,"rate":1},"revealed":[["S3","H7"],["C4","H6"],["S5","C5"]],"last_play":{"seat":0,"cards":["D10"]},"dobon":null},
  // standard, §T16.9 (j): quick and storm, bids [2, 1, 1, 1]; 0 plays "H13", 2 dobons
  stdJ: {"result":{"kind":"dobon","winners":[2],"losers":[0],"payments":[],"scores":[162,40,-200,26],"deltas":[162,40,-200,26],"score_order":"low","hand_points":[33,40,0,26],"chain":null,"multiplier":null,"target":["H13"],"worst":40,"bonuses":[[2,"storm",-100],[2,"quick",-100],[0,"quick",80],[0,"auction",2]],"next_first_player":null,"rate":1},"revealed":[["S9","D8","C12","H6"],["S13","D4","C7","H9","D10"],["C3","D3","H3","S2","H2"],["C11","S5","D6","H1","C4"]],"last_play":{"seat":0,"cards":["H13"]},"dobon":{"declarers":[{"seat":2,"count":1}],"target":["H13"],"losers":[0],"returners":[]}},
  // standard, §T16.9 (b): bids [1, 2, 1, 5]; 3 "C8" · 0 "C6" · 1 "C7"; 3 dobons on "C7"
  stdB: {"result":{"kind":"dobon","winners":[3],"losers":[1],"payments":[],"scores":[22,44,17,-50],"deltas":[22,44,17,-50],"score_order":"low","hand_points":[22,14,17,0],"chain":null,"multiplier":null,"target":["C7"],"worst":22,"bonuses":[[3,"auction",-50]],"next_first_player":null,"rate":1},"revealed":[["S13","D12","H2"],["C9","D5"],["C10","H1","S6"],["S3","C4"]],"last_play":{"seat":1,"cards":["C7"]},"dobon":{"declarers":[{"seat":3,"count":1}],"target":["C7"],"losers":[1],"returners":[]}},
};
const trumpData = (v) => ({ result: v.result, hands: v.revealed, lastPlay: v.last_play, dobon: v.dobon });
const seatName = (s) => ["alice", "bob", "carol", "dave"][s];

test("T15.3 au settlement: who dobon'd whom on which card, the value sum written out, each factor named", async () => {
  const { trumpHowItEnded, auWorkedSums, dobonnedCard } = await import("../../static/js/table/trump.js");
  const data = trumpData(TRUMP_VIEWS.au);
  assert.equal(trumpHowItEnded(data, seatName), "bobがaliceの♦8にドボン！");
  assert.deepEqual(dobonnedCard(data), { seat: 0, cards: ["D8"] }); // shown in alice's row
  assert.deepEqual(auWorkedSums(data, seatName), [
    "合計値 36 = bobの手札 8 + aliceの手札 20 + ドボンされた♦8 8",
    "倍率 ×2 = 2の枚数 0枚で ×1 × ドボン 1回で ×2",
    "alice → bob  72点 = 合計値 36 × 倍率 2",
  ]);
  const twos = auWorkedSums(trumpData(TRUMP_VIEWS.auTwos), seatName);
  assert.equal(twos[0], "合計値 25 = bobの手札 4 + aliceの手札 17 + ドボンされた♣4 4");
  assert.equal(twos[1], "倍率 ×16 = 2の枚数 3枚で ×8 × ドボン 1回で ×2");
  assert.equal(twos[2], "alice → bob  400点 = 合計値 25 × 倍率 16");
});

test("T15.3 au return: the chain's last declarer wins from the one before it, d counts both", async () => {
  const { trumpHowItEnded, auWorkedSums } = await import("../../static/js/table/trump.js");
  const data = trumpData(TRUMP_VIEWS.auReturn);
  assert.equal(trumpHowItEnded(data, seatName), "aliceがbobのドボンを返した！（aliceの♦10）");
  assert.deepEqual(auWorkedSums(data, seatName), [
    "合計値 30 = aliceの手札 10 + bobの手札 10 + ドボンされた♦10 10",
    "倍率 ×4 = 2の枚数 0枚で ×1 × ドボン・返し 2回で ×4",
    "bob → alice  120点 = 合計値 30 × 倍率 4",
  ]);
});

test("T15.2 au stop: each loser's payment is its hand value times its 2s, named", async () => {
  const { trumpHowItEnded, auWorkedSums } = await import("../../static/js/table/trump.js");
  const data = trumpData(TRUMP_VIEWS.auStop);
  assert.equal(trumpHowItEnded(data, seatName), "aliceがストップ！");
  assert.deepEqual(auWorkedSums(data, seatName), [
    "bob → alice  13点 = bobの手札の合計値 13 × 2の枚数 0枚で ×1",
    "carol → alice  40点 = carolの手札の合計値 20 × 2の枚数 1枚で ×2",
  ]);
});

test("T16.3 standard settlement: every row labelled, bonuses by name, the declarer's 0 explained", async () => {
  const { trumpHowItEnded, standardWorkedSums, deltaClass } = await import("../../static/js/table/trump.js");
  const j = trumpData(TRUMP_VIEWS.stdJ);
  assert.equal(trumpHowItEnded(j, seatName), "carolがaliceの♥Kにドボン！");
  assert.deepEqual(standardWorkedSums(j, seatName), [
    "最悪点 40（敗者以外で最も大きい基本点）",
    "alice: 最悪点 40 × 勝者1人 × 2 = 80 + クイックドボン 80 + 落札点 2 = 162",
    "bob: 基本点 40",
    "carol: 基本点 0（ドボンで出した札：手札なし） − ストームドボン 100 − クイックドボン 100 = −200",
    "dave: 基本点 26",
  ]);
  const b = standardWorkedSums(trumpData(TRUMP_VIEWS.stdB), seatName);
  assert.equal(b[2], "bob: 最悪点 22 × 勝者1人 × 2 = 44");
  assert.equal(b[4], "dave: 基本点 0（ドボンで出した札：手札なし） − 落札点 50 = −50");
  // §T16.3 lower is better: a negative change is good (green), a positive one bad (red).
  assert.equal(deltaClass(-200, "low"), "pos");
  assert.equal(deltaClass(162, "low"), "neg");
  assert.equal(deltaClass(72, "high"), "pos");
  assert.equal(deltaClass(-72, "high"), "neg");
});

test("issue 33: the trump settlement's words exist in English too", async () => {
  const { TRUMP_WORDS } = await import("../../static/js/table/trumpstrings.js");
  const en = TRUMP_WORDS.en;
  assert.equal(en.howDobon("bob", "alice", "♦8"), "bob dobon'd alice on ♦8!");
  assert.equal(en.auSumLine(36, [["bob", 8], ["alice", 20]], "♦8", 8), "Value 36 = bob's hand 8 + alice's hand 20 + the dobon'd ♦8 8");
  assert.equal(en.auFactorLine(16, 3, 1), "Multiplier ×16 = ×8 for 3 twos × ×2 for 1 dobon");
  for (const key of Object.keys(TRUMP_WORDS.ja)) assert.ok(key in en, key);
});
