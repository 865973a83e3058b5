// The live table: one websocket per room page (protocol in game/consumers.py).
// Renders only what the server sends for this person (their own view); every button
// is one of the server's legal_actions. A version gap or a reconnect asks for `sync`.

const STRINGS = {
  ja: {
    connecting: "接続中…", waiting: "ゲーム開始を待っています", watching: "観戦中",
    finished: "ゲーム終了", aborted: "ゲームは中止されました", lost: "接続が切れました。再接続中…",
    anonymous: "ログインしてください", forbidden: "このルームは非公開です", noroom: "ルームがありません",
    top: "場のカード", color: "色", turn: "手番", direction: "向き", stack: "ドロー累積", deck: "山札",
    rate: "レート", clock: "残り時間", hand: "あなたの手札", cw: "時計回り", ccw: "反時計回り",
    you: "あなた", cards: "枚", seconds: "秒", choosing: "色選択中",
    play: "出す", draw: "引く", take: "引き取る", pass: "パス", dobon: "ドボン！", return: "ドボン返し",
    decline: "見送る", choose: "色", last: "前回の結果", points: "点",
    kinds: { agari: "上がり", dobon: "ドボン", return: "ドボン返し", deck_out: "山札切れ" },
    colors: { R: "赤", B: "青", G: "緑", Y: "黄" },
    symbols: { S: "スキップ", R: "リバース", "+2": "ドロー2", F: "強制色変え" },
    wild: "ワイルド", wild4: "ドロー4", cardSep: "",
    events: {
      play: "出した", draw: "引いた", take: "累積を引き取った", drawn: "引いたカード", pass: "パス",
      color: "色を選んだ", turn: "手番", chance: "チャンス", decline: "見送った", agari: "上がり",
      dobon: "ドボン！", return: "ドボン返し！", timeout: "タイムアウト", finished: "ゲーム終了",
      start: "ゲーム開始", aborted: "中止",
    },
  },
  en: {
    connecting: "Connecting…", waiting: "Waiting for the game to start", watching: "Watching",
    finished: "Game over", aborted: "The game was aborted", lost: "Connection lost. Reconnecting…",
    anonymous: "Please log in", forbidden: "This room is private", noroom: "No such room",
    top: "Top card", color: "Colour", turn: "Turn", direction: "Direction", stack: "Draw stack",
    deck: "Deck", rate: "Rate", clock: "Time left", hand: "Your hand", cw: "clockwise",
    ccw: "counter-clockwise", you: "you", cards: "cards", seconds: "s", choosing: "choosing colour",
    play: "Play", draw: "Draw", take: "Take", pass: "Pass", dobon: "Dobon!", return: "Return",
    decline: "Decline", choose: "Colour", last: "Last result", points: "pts",
    kinds: { agari: "went out", dobon: "dobon", return: "dobon return", deck_out: "deck out" },
    colors: { R: "red", B: "blue", G: "green", Y: "yellow" },
    symbols: { S: "skip", R: "reverse", "+2": "draw two", F: "force colour" },
    wild: "wild", wild4: "wild draw four", cardSep: " ",
    events: {
      play: "played", draw: "drew", take: "took the stack", drawn: "you drew", pass: "passed",
      color: "chose", turn: "turn", chance: "chance", decline: "declined", agari: "went out",
      dobon: "Dobon!", return: "Return!", timeout: "timeout", finished: "game over",
      start: "game started", aborted: "aborted",
    },
  },
};

const lang = (document.documentElement.lang || "ja").slice(0, 2);
const T = STRINGS[lang] || STRINGS.ja;
const FINAL_CLOSE = { 4401: "anonymous", 4403: "forbidden", 4404: "noroom" };

export function cardLabel(code) {
  if (code === "W") return T.wild;
  if (code === "W+4") return T.wild4;
  const color = T.colors[code[0]] || code[0];
  const rest = code.slice(1);
  return `${color}${T.cardSep}${T.symbols[rest] || rest}`;
}

function cardElement(code) {
  const el = document.createElement("span");
  el.className = `card card-${code.startsWith("W") ? "W" : code[0]}`;
  el.textContent = cardLabel(code);
  el.dataset.card = code;
  return el;
}

export function actionLabel(action) {
  if (action.type === "play") return `${T.play}: ${action.cards.map(cardLabel).join(" ")}`;
  if (action.type === "color") return `${T.choose}: ${T.colors[action.color]}`;
  return T[action.type] || action.type;
}

export class Table {
  constructor(root) {
    this.root = root;
    this.url = new URL(root.dataset.wsUrl, window.location.href);
    this.url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    this.game = null;
    this.version = null;
    this.state = null;
    this.offset = 0; // server clock minus ours, seconds
    this.retry = 500;
    this.ui = Object.fromEntries(
      [...root.querySelectorAll("[data-role]")].map((el) => [el.dataset.role, el]),
    );
    root.querySelectorAll("[data-label]").forEach((el) => { el.textContent = T[el.dataset.label]; });
    this.ui["top-label"].textContent = T.top;
    setInterval(() => this.tick(), 200);
  }

  connect() {
    this.setStatus(T.connecting);
    this.socket = new WebSocket(this.url);
    this.socket.onopen = () => { this.retry = 500; };
    this.socket.onmessage = (m) => this.receive(JSON.parse(m.data));
    this.socket.onclose = (e) => this.closed(e);
  }

  closed(event) {
    if (FINAL_CLOSE[event.code]) {
      this.setStatus(T[FINAL_CLOSE[event.code]]);
      return;
    }
    this.setStatus(T.lost);
    // The server sends the whole current table on every (re)connection.
    setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 8000);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  receive(message) {
    if (message.type === "state") this.applyState(message);
    else if (message.type === "event") this.applyEvent(message);
    else if (message.type === "error") this.showError(message.message || message.code);
  }

  applyEvent(message) {
    const known = message.game === this.game && this.version !== null;
    if (known && message.version > this.version + 1) this.send({ type: "sync" }); // a gap
    this.log(message.event);
  }

  applyState(message) {
    this.game = message.game;
    this.version = message.version;
    this.offset = message.server_time - Date.now() / 1000;
    this.state = message;
    if (message.room) this.room = message.room;
    this.showError("");
    this.render();
  }

  playerName(seat) {
    const p = (this.state.players || []).find((x) => x.seat === seat);
    if (!p) return `#${seat}`;
    return seat === this.state.seat ? `${p.username} (${T.you})` : p.username;
  }

  render() {
    const { view, status } = this.state;
    this.ui.field.hidden = !view;
    this.ui["hand-box"].hidden = !(view && view.hand);
    this.ui.actions.replaceChildren();
    if (!view) {
      this.setStatus(status === "aborted" ? T.aborted : T.waiting);
      this.renderRoom();
      return;
    }
    const mine = view.seat !== null && view.seat !== undefined;
    this.setStatus(view.phase === "finished" ? T.finished : mine ? "" : T.watching);
    this.ui.top.replaceChildren(cardElement(view.top));
    this.ui.color.textContent = view.color ? T.colors[view.color] : "—";
    this.ui.turn.textContent = view.turn !== null ? this.playerName(view.turn)
      : view.chooser !== null ? `${this.playerName(view.chooser)} (${T.choosing})` : "—";
    this.ui.direction.textContent = view.direction === 1 ? T.cw : T.ccw;
    this.ui.stack.textContent = view.pending_draw || "—";
    this.ui.deck.textContent = view.deck_count;
    this.ui.rate.textContent = `×${view.rate}`;
    this.ui.players.replaceChildren(...view.hand_counts.map((count, seat) => {
      const li = document.createElement("li");
      li.textContent = `${this.playerName(seat)}: ${count}${T.cards}`;
      const player = (this.state.players || []).find((x) => x.seat === seat);
      if (player) li.dataset.kind = player.kind || "human";
      if (seat === view.turn) li.classList.add("on-turn");
      const shown = view.revealed && view.revealed[seat];
      if (shown) li.append(" ", ...shown.map(cardElement));
      return li;
    }));
    const legal = view.legal_actions || [];
    if (view.hand) this.ui.hand.replaceChildren(...view.hand.map((code) => this.handCard(code, legal)));
    for (const action of legal) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `button action-${action.type}`;
      button.textContent = actionLabel(action);
      // The DOM contract the browser tests rely on: data-action is the kind of action
      // (a draw facing a stack is a "take"), colour choices carry data-color.
      button.dataset.action = action.type === "draw" && view.pending_draw ? "take" : action.type;
      if (action.cards) button.dataset.cards = action.cards.join(" ");
      if (action.color) button.dataset.color = action.color;
      button.addEventListener("click", () => this.send({ type: "action", action }));
      this.ui.actions.append(button);
    }
    this.renderResult(view.result);
  }

  // A hand card is a button; it plays itself when a single-card play of it is legal.
  handCard(code, legal) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `card card-${code.startsWith("W") ? "W" : code[0]}`;
    button.textContent = cardLabel(code);
    button.dataset.card = code;
    const action = legal.find((a) => a.type === "play" && a.cards.length === 1 && a.cards[0] === code);
    if (action) {
      button.dataset.playable = "true";
      button.addEventListener("click", () => this.send({ type: "action", action }));
    } else {
      button.disabled = true;
    }
    return button;
  }

  renderResult(result) {
    this.ui.result.hidden = !result;
    if (!result) return;
    const winners = result.winners.map((s) => this.playerName(s)).join(", ");
    const deltas = result.deltas.map((d, s) => `${this.playerName(s)} ${d > 0 ? "+" : ""}${d}${T.points}`);
    this.ui.result.textContent = `${T.kinds[result.kind] || result.kind}${winners ? `: ${winners}` : ""} — ${deltas.join(" / ")}`;
  }

  renderRoom() {
    const room = this.room;
    this.ui.players.replaceChildren();
    this.ui.result.hidden = true;
    const last = room && room.last_result;
    if (last && last.result) {
      const r = last.result;
      const names = r.players ? r.players.map((p) => p.username) : [];
      const line = r.deltas.map((d, s) => `${names[s] || s} ${d > 0 ? "+" : ""}${d}${T.points}`);
      this.ui.result.hidden = false;
      this.ui.result.textContent = `${T.last}: ${T.kinds[r.kind] || r.kind} — ${line.join(" / ")}`;
    }
  }

  tick() {
    const clock = this.ui.clock;
    const deadline = this.state && this.state.deadline;
    if (!deadline || !this.state.view || this.state.view.phase === "finished") {
      clock.textContent = "—";
      return;
    }
    const left = Math.max(0, deadline - (Date.now() / 1000 + this.offset));
    clock.textContent = `${left.toFixed(1)}${T.seconds}`;
  }

  log(event) {
    const li = document.createElement("li");
    const who = event.seat !== null && event.seat !== undefined && this.state ? this.playerName(event.seat) : "";
    let text = `${who} ${T.events[event.type] || event.type}`;
    if (event.cards) text += ` ${event.cards.map(cardLabel).join(" ")}`;
    if (event.color) text += ` ${T.colors[event.color]}`;
    li.textContent = text.trim();
    this.ui.log.prepend(li);
    while (this.ui.log.children.length > 12) this.ui.log.lastChild.remove();
  }

  setStatus(text) { this.ui.status.textContent = text; }

  showError(text) {
    this.ui.error.hidden = !text;
    this.ui.error.textContent = text;
  }
}

const root = document.getElementById("table");
if (root && root.dataset.wsUrl) new Table(root).connect();
