// The room's websocket: connects, reconnects with backoff, and resumes from the last
// version the table holds (protocol v2 `sync` with game and version). Never touches
// the DOM: it reports messages and its connection state to its owner.

// 4410, 4411 and 4503 (too many sockets or handshakes from this address, a full
// server process) are not final: the backoff below tries again.
const FINAL_CLOSE = { 4401: "anonymous", 4403: "noroom", 4404: "noroom", 4408: "gone", 4409: "tooMany", 4412: "roomFull" };

export class TableSocket {
  constructor(url, { onMessage, onStatus, position }) {
    this.url = new URL(url, window.location.href);
    this.url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    this.onMessage = onMessage;
    this.onStatus = onStatus; // "connecting" | "open" | "reconnecting" | a FINAL_CLOSE value
    this.position = position; // () => {game, version} the table holds, or null
    this.retry = 500;
    this.everOpened = false;
  }

  connect() {
    this.onStatus(this.everOpened ? "reconnecting" : "connecting");
    this.ws = new WebSocket(this.url);
    this.ws.onopen = () => this.opened();
    this.ws.onmessage = (m) => this.onMessage(JSON.parse(m.data));
    this.ws.onclose = (e) => this.closed(e);
  }

  opened() {
    this.retry = 500;
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
    this.onStatus("reconnecting");
    setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 8000);
  }

  get open() { return this.ws && this.ws.readyState === WebSocket.OPEN; }

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
