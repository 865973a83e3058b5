// Which state frames the table takes (static/js/table/frames.js), issue #30: a table back
// from a restart while its game ended shows that game's end, then the next game, as a
// table that stayed connected does; it never loses the end to the new connection's first
// table.
import assert from "node:assert/strict";
import test from "node:test";

import { frameVerdict, resumeTarget } from "../../static/js/table/frames.js";

const running = (game, version, extra = {}) => ({ game, version, from_version: version, status: "running",
  view: { phase: "turn" }, ...extra });
const finished = (game, version, since) => ({ game, version, from_version: since, status: "finished",
  view: { phase: "finished", result: { winners: [1] } }, events: [{ type: "finished" }] });
const noGame = (lastGame) => ({ game: null, version: null, from_version: null, status: null, view: null,
  room: { last_result: lastGame === null ? null : { game: lastGame } } });

/** The table's own bookkeeping around frameVerdict, as app.js does it. */
function replay(held, frames) {
  let state = held;
  let resuming = resumeTarget(held);  // set when the socket opens again
  const shown = [];
  for (const message of frames) {
    const verdict = frameVerdict(state, message, resuming);
    resuming = null;
    if (verdict === "apply") state = message;
    shown.push(verdict === "apply" ? `${message.game}@${message.version}` : verdict);
  }
  return { state, shown };
}

test("back at the next game's table: the end of game 5 first, then game 6, as a live socket sees them", () => {
  const { state, shown } = replay(running(5, 3), [running(6, 2), finished(5, 9, 3), running(6, 2)]);
  assert.deepEqual(shown, ["connect", "5@9", "6@2"]);
  assert.equal(state.game, 6);
});

test("back with no game running: the end of game 5, which then stays on the table with its settlement", () => {
  const { state, shown } = replay(running(5, 3), [noGame(5), finished(5, 9, 3), noGame(5)]);
  assert.deepEqual(shown, ["connect", "5@9", "room"]);
  assert.equal(state.game, 5);
  assert.equal(state.view.phase, "finished");
});

test("a server without catch-up frames still brings the table: the resume's answer is applied", () => {
  assert.deepEqual(replay(running(5, 3), [running(6, 2), running(6, 2)]).shown, ["connect", "6@2"]);
  assert.deepEqual(replay(running(5, 3), [noGame(5), noGame(5)]).shown, ["connect", "null@null"]);
});

test("back while the same game runs: the first table shows the gap, the resume fills it", () => {
  const { shown } = replay(running(5, 3), [running(5, 7), { ...running(5, 7), from_version: 3 }]);
  assert.deepEqual(shown, ["gap", "5@7"]);
});

test("nothing is skipped when the table held no running game", () => {
  assert.equal(resumeTarget(null), null);
  assert.equal(resumeTarget(finished(5, 9, 8)), null);
  assert.equal(resumeTarget(noGame(5)), null);
  assert.deepEqual(replay(finished(5, 9, 8), [running(6, 0)]).shown, ["6@0"]);
});

test("a no-game frame replaces a finished game that is not the room's last result", () => {
  assert.equal(frameVerdict(finished(5, 9, 8), noGame(6)), "apply");
  assert.equal(frameVerdict(running(5, 3), noGame(5)), "apply");
  assert.equal(frameVerdict(running(5, 3), running(5, 2)), "old");
});
