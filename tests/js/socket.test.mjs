// The table's socket (static/js/table/socket.js) after a close: 1012 (server restart,
// issue #30) is a quiet reconnect after a random 0.25-1.5 s that resumes by version;
// other drops back off with jitter and say "reconnecting"; final codes stop.
import assert from "node:assert/strict";
import test from "node:test";

import { QUIET_MS, RESTART_CLOSE, TableSocket, reconnectDelay } from "../../static/js/table/socket.js";

class FakeWebSocket {
  static OPEN = 1;
  static made = [];
  constructor(url) { this.url = String(url); this.readyState = 0; this.sent = []; FakeWebSocket.made.push(this); }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() {}
  open() { this.readyState = FakeWebSocket.OPEN; this.onopen(); }
  closeWith(code) { this.readyState = 3; this.onclose({ code }); }
}

function harness(randoms = [0.5]) {
  globalThis.window = { location: { href: "http://table.test/rooms/7/", protocol: "http:" } };
  globalThis.WebSocket = FakeWebSocket;
  FakeWebSocket.made = [];
  const clock = { now: 1000 };
  const timers = [];
  const statuses = [];
  let r = 0;
  const socket = new TableSocket("/ws/rooms/7/", {
    onMessage: () => {}, onStatus: (s) => statuses.push(s),
    position: () => ({ game: 3, version: 41 }),
    random: () => randoms[r++ % randoms.length], now: () => clock.now,
    later: (fn, ms) => timers.push({ fn, ms }),
  });
  // Runs the earliest timer after moving the clock to it.
  const runNext = () => {
    timers.sort((a, b) => a.ms - b.ms);
    const { fn, ms } = timers.shift();
    clock.now += ms;
    timers.forEach((t) => { t.ms -= ms; });
    fn();
    return ms;
  };
  return { socket, statuses, timers, runNext, clock };
}

test("reconnectDelay: a restart waits 250-1500 ms; other drops jitter the upper half", () => {
  assert.equal(reconnectDelay(4000, true, () => 0), 250);
  assert.equal(reconnectDelay(4000, true, () => 1), 1500);
  assert.equal(reconnectDelay(4000, false, () => 0), 2000);
  assert.equal(reconnectDelay(4000, false, () => 1), 4000);
});

test("1012: a quiet reconnect after a random 0.25-1.5 s that resumes by version", () => {
  const { socket, statuses, timers, runNext } = harness([0.2]);
  socket.connect();
  FakeWebSocket.made[0].open();
  FakeWebSocket.made[0].closeWith(RESTART_CLOSE);
  assert.deepEqual(statuses, ["connecting", "open", "restarting"]);
  const waited = runNext();
  assert.equal(waited, 250 + 0.2 * 1250);
  assert.equal(FakeWebSocket.made.length, 2);
  assert.equal(statuses.at(-1), "restarting"); // still nothing shown while it connects
  FakeWebSocket.made[1].open();
  assert.equal(statuses.at(-1), "open");
  assert.deepEqual(FakeWebSocket.made[1].sent, [{ type: "sync", game: 3, version: 41, private: 0 }]);
  assert.ok(!statuses.includes("reconnecting"));
  // The "say so" timer finds the socket open: it changes nothing.
  timers.forEach((t) => t.fn());
  assert.equal(statuses.at(-1), "open");
});

test("1012 with no other server to take it: failed tries stay quiet, then say reconnecting", () => {
  const { socket, statuses, runNext, clock } = harness([0.5]);
  socket.connect();
  FakeWebSocket.made[0].open();
  FakeWebSocket.made[0].closeWith(RESTART_CLOSE);
  runNext(); // the first try fails as a plain drop (1006) within the quiet time
  FakeWebSocket.made[1].closeWith(1006);
  assert.equal(statuses.at(-1), "restarting");
  while (clock.now < 1000 + QUIET_MS) runNext();
  assert.equal(statuses.at(-1), "reconnecting");
});

test("a plain drop says reconnecting and backs off with jitter; final codes stop", () => {
  const { socket, statuses, runNext } = harness([1]);
  socket.connect();
  FakeWebSocket.made[0].open();
  FakeWebSocket.made[0].closeWith(1006);
  assert.equal(statuses.at(-1), "reconnecting");
  assert.equal(runNext(), 500);
  FakeWebSocket.made[1].closeWith(1006);
  assert.equal(runNext(), 1000);
  FakeWebSocket.made[2].closeWith(4409);
  assert.equal(statuses.at(-1), "tooMany");
  assert.equal(FakeWebSocket.made.length, 3);
});
