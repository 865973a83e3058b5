// The room's websocket: connects, reconnects with backoff, and resumes from the last
// version the table holds (protocol v2 `sync` with game and version). Never touches
// the DOM: it reports messages and its connection state to its owner.

// 4410, 4411 and 4503 (too many sockets or handshakes from this address, a full
// server process) are not final: the backoff below tries again.
const FINAL_CLOSE = { 4401: "anonymous", 4403: "noroom", 4404: "noroom", 4408: "gone", 4409: "tooMany", 4412: "roomFull" };

// 1012: the server process is restarting (docs/protocol.md, "Server restarts"). An
// expected, quiet reconnect: after a random 0.25–1.5 s, so that the sockets of a
// restarting process do not all come back in the same instant, and without a word to
// the player unless it takes longer than QUIET_MS.
export const RESTART_CLOSE = 1012;
export const RESTART_DELAY_MS = [250, 1500];
export const QUIET_MS = 6000;
export const FIRST_RETRY_MS = 500;
export const MAX_RETRY_MS = 8000;

/** Milliseconds before the next try: after a restart a random 250–1500; else `retry`
 * with its upper half random, so that clients dropped together spread out. */
export function reconnectDelay(retry, restart, random = Math.random) {
  const [low, high] = restart ? RESTART_DELAY_MS : [retry / 2, retry];
  return low + random() * (high - low);
}

export class TableSocket {
  constructor(url, { onMessage, onStatus, position, random = Math.random, now = Date.now,
                     later = (fn, ms) => setTimeout(fn, ms) }) {
    this.url = new URL(url, window.location.href);
    this.url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    this.onMessage = onMessage;
    // "connecting" | "open" | "restarting" (quiet) | "reconnecting" | a FINAL_CLOSE value
    this.onStatus = onStatus;
    this.position = position; // () => {game, version} the table holds, or null
    this.random = random;
    this.now = now;
    this.later = later;
    this.retry = FIRST_RETRY_MS;
    this.everOpened = false;
    this.quietUntil = 0; // a restart reconnects without a word until then
  }

  get quiet() { return this.now() < this.quietUntil; }

  connect() {
    this.onStatus(!this.everOpened ? "connecting" : this.quiet ? "restarting" : "reconnecting");
    this.ws = new WebSocket(this.url);
    this.ws.onopen = () => this.opened();
    this.ws.onmessage = (m) => this.onMessage(JSON.parse(m.data));
    this.ws.onclose = (e) => this.closed(e);
  }

  opened() {
    this.retry = FIRST_RETRY_MS;
    this.quietUntil = 0;
    const wasOpen = this.everOpened;
    this.everOpened = true;
    this.onStatus("open");
    // The server sends the current table on connect; after a drop also ask for the
    // events missed meanwhile, so the log and the animations catch up.
    if (wasOpen) this.resume();
  }

  closed(event) {
    const final = FINAL_CLOSE[event.code];
    if (final) {
      this.onStatus(final);
      return;
    }
    const restart = event.code === RESTART_CLOSE;
    if (restart) {
      this.quietUntil = this.now() + QUIET_MS;
      // Still not back by then (no other server process took it): say so.
      this.later(() => { if (!this.open && !this.quiet) this.onStatus("reconnecting"); }, QUIET_MS);
    }
    this.onStatus(this.quiet ? "restarting" : "reconnecting");
    this.later(() => this.connect(), reconnectDelay(this.retry, restart, this.random));
    if (!restart) this.retry = Math.min(this.retry * 2, MAX_RETRY_MS);
  }

  get open() { return Boolean(this.ws) && this.ws.readyState === WebSocket.OPEN; }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  resume() {
    const at = this.position();
    this.send(at && at.game
      ? { type: "sync", game: at.game, version: at.version, private: at.private || 0 }
      : { type: "sync" });
  }

  /** For tests of the reconnect path and for a flaky network: drop and come back. */
  drop() { if (this.ws) this.ws.close(); }
}
