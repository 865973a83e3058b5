// The table's store and conductor: applies `state` frames (protocol v2, docs/protocol.md)
// to one in-memory table, renders from that state, animates from the events the frame
// carries, and turns taps and keys into actions.

import { cardBack, cardElement } from "../cards.js";
import { placeStatus, renderCenter, renderSeats, setRing } from "./felt.js";
import { fitHand, renderActions, renderHand, tapResult } from "./hand.js";
import { H, noticeFor, renderRulesChip, turnText } from "./house.js";
import { logEntry } from "./log.js";
import { fly, pulse } from "./motion.js";
import { RoomPanel } from "./roompanel.js";
import { frameVerdict, resumeTarget } from "./frames.js";
import { gameOver, lateRefusal, renderSettlement } from "./settlement.js";
import { TableSocket } from "./socket.js";
import { Sound, vibrate } from "./sound.js";
import { STAMPS, renderStamps, sendStamp, showStamp } from "./stamps.js";
import { T } from "./strings.js";
import { SUIT_KEYS, renderTrumpActions, renderTrumpCenter, renderTrumpHand, trumpTap } from "./trump.js";
import { trumpCard } from "../trumpcards.js";
import { TT } from "./trumpstrings.js";

const KEYS = { d: "draw", t: "take", p: "pass", b: "dobon", r: "return", n: "decline", e: "play" };
// Trump Dobon adds last one and 役; its dobon buttons may carry a count (dobon-2).
const TRUMP_KEYS = { ...KEYS, l: "last_one", y: "yaku" };
const COLOR_KEYS = { 1: "R", 2: "B", 3: "G", 4: "Y" };
const LOG_LIMIT = 60;
const SPOKEN_LIMIT = 8;
// Said in words as they happen (turns have their own region; the rest is too chatty).
const SPOKEN = new Set(["start", "play", "draw", "take", "drawn", "pass", "color", "chance", "agari",
  "dobon", "return", "timeout", "finished", "aborted"]);
const PENDING_MS = 4000;

export class TableApp {
  constructor(root) {
    this.root = root;
    this.table = root.querySelector("[data-testid=live-table]");
    this.ui = Object.fromEntries([...root.querySelectorAll("[data-role]")].map((el) => [el.dataset.role, el]));
    this.me = root.dataset.me;
    this.isOwner = root.dataset.owner === "true";
    this.startUrl = root.dataset.startUrl || "";
    this.state = null;
    this.room = null;
    this.online = null;
    this.offset = 0;
    this.selected = [];
    this.sortedHand = [];
    this.pending = false;
    this.starting = false;
    this.resuming = false;
    this.resumingGame = null;  // the game a reconnect resumes, until its first table came
    this.sound = new Sound();
    const panel = document.getElementById("room-panel");
    this.panel = panel ? new RoomPanel(panel) : null;
    this.socket = new TableSocket(root.dataset.wsUrl, {
      onMessage: (m) => this.receive(m),
      onStatus: (s) => this.connection(s),
      position: () => (this.state && this.state.game
        ? { game: this.state.game, version: this.state.version, private: this.state.private || 0 }
        : null),
    });
    this.wire();
    setInterval(() => this.tick(), 100);
  }

  start() {
    this.restoreLog();
    this.restoreSettlement();
    this.socket.connect();
  }

  /** The owner switched the room to another game kind or preset between games: the last
   * game's finished table (its settlement, which also hid Start) belongs to the history
   * now, not over the new game's table. A running game is never dropped. */
  dropOtherKindsGame() {
    const s = this.state;
    if (!s || !this.room || (s.view && s.view.phase !== "finished")) return false;
    const kindOf = (game) => `${game.game_kind || "dobon_uno"}/${game.preset || ""}`;
    if (s.game_kind && kindOf(s) !== kindOf(this.room)) {
      this.state = null;
      this.selected = [];
      return true;
    }
    return false;
  }

  /** Whether the table plays trump Dobon: the frame's game kind, else the room's. */
  get trump() {
    const kind = (this.state && this.state.view && this.state.game_kind) || (this.room && this.room.game_kind);
    return kind === "trump_dobon";
  }

  /** A face-up card of the table's game. */
  face(code) { return this.trump ? trumpCard(code) : cardElement(code); }

  // -- wiring -------------------------------------------------------------------------------

  wire() {
    this.ui["sound-toggle"].addEventListener("click", () => this.toggleSound());
    this.ui["help-open"].addEventListener("click", () => this.openHelp());
    this.ui["help-close"].addEventListener("click", () => this.closeHelp());
    this.ui.help.addEventListener("click", (e) => { if (e.target === this.ui.help) this.closeHelp(); });
    this.helpKeys();
    this.showSound();
    const form = this.ui["start-form"];
    if (form) form.addEventListener("submit", (e) => { e.preventDefault(); this.startNextGame(); });
    document.addEventListener("keydown", (e) => this.key(e));
    window.addEventListener("resize", () => { fitHand(this.ui.hand); this.fitFelt(); });
  }

  /** The keyboard help: the table's keys, and trump Dobon's own or the house rules' keys. */
  helpKeys() {
    const keys = this.trump ? [...T.keys, ...TT.keys] : [...T.keys, ...H.keys];
    this.ui["help-keys"].replaceChildren(...keys.flatMap(([k, text]) => {
      const dt = document.createElement("dt");
      const kbd = document.createElement("kbd");
      kbd.textContent = k;
      dt.append(kbd);
      const dd = document.createElement("dd");
      dd.textContent = text;
      return [dt, dd];
    }));
  }

  /** The owner's start button follows the live seating: two seated players or more. */
  showStartable() {
    const button = this.root.querySelector('[data-role="start-button"]');
    const hint = this.root.querySelector('[data-role="start-hint"]');
    if (!button || !this.room || !this.room.seats) return;
    const enough = this.room.seats.filter(Boolean).length >= 2;
    button.disabled = !enough || Boolean(this.starting);
    if (hint) hint.hidden = enough;
  }

  // -- from the server ---------------------------------------------------------------------

  connection(status) {
    this.connStatus = status;
    // Back after a drop or a restart: the socket resumes the game shown (socket.js), and
    // the server's first table may be a newer game's, sent before the resume's answer
    // (the end of this game, then that table again): frames.js.
    if (status === "open") this.resumingGame = resumeTarget(this.state);
    // "restarting": the server said it restarts (1012) and the socket is already on its
    // way back; nothing to tell the player unless it takes long (socket.js).
    const text = { connecting: T.connecting, reconnecting: T.reconnecting, open: "", restarting: "" }[status];
    this.ui.conn.textContent = text !== undefined ? text : T[status] || T.closed;
    this.table.classList.toggle("is-offline", status !== "open" && status !== "restarting");
    if (status === "open") this.renderStatus();
  }

  receive(message) {
    if (message.type === "state") this.applyState(message);
    else if (message.type === "presence") {
      const before = this.online;
      this.online = new Set(message.online);
      if (before) this.notePresence(before, this.online);
      renderSeats(this);
    } else if (message.type === "room") {
      this.room = message.room;
      this.dropOtherKindsGame();
      this.render();
    } else if (message.type === "stamp") showStamp(this, message);
    else if (message.type === "error") this.refused(message);
  }

  applyState(message) {
    const old = this.state;
    const verdict = frameVerdict(old, message, this.resumingGame);
    this.resumingGame = null;  // only the new connection's first table is in question
    if (verdict === "connect" || verdict === "old") return;
    if (verdict === "gap") {
      // A gap: fetch the missing events and the table with them (one sync at a time).
      if (!this.resuming) {
        this.resuming = true;
        this.socket.resume();
      }
      return;
    }
    this.resuming = false;
    if (verdict === "room") {  // the finished game stays on the table, as after a live end
      this.room = message.room;
      this.dropOtherKindsGame();
      this.render();
      return;
    }
    const sameGame = old && message.game !== null && old.game === message.game;
    const events = message.events || [];
    // A new game, or the end of this one: no selection (and, as the prompts are drawn from
    // the view's legal actions, no colour picker or chance prompt) outlives it.
    if (!sameGame || !message.view || message.view.phase === "finished") this.selected = [];
    this.offset = message.server_time - Date.now() / 1000;
    this.state = message;
    if (message.room) this.room = message.room;
    this.pending = false;
    clearTimeout(this.pendingTimer);
    this.keepSelection();
    for (const event of events) this.log(event);
    const finished = events.find((e) => e.type === "finished");
    if (finished) this.keepSettlement(message, finished.hands);
    this.render();
    this.animate(events, events.length <= 4);
    this.announce(old, message, events);
    if (finished) this.focusSettlement();
    else if (this.dropOtherKindsGame()) this.render();  // a reload after a switch of kind
  }

  /** People who leave the room (every socket closed) or come back: said in the log. */
  notePresence(before, now) {
    const seated = new Set(((this.room && this.room.seats) || []).filter(Boolean).map((s) => s.username));
    for (const name of before) if (!now.has(name) && name !== this.me && seated.has(name)) this.note(T.left(name), "log-left");
    for (const name of now) if (!before.has(name) && name !== this.me && seated.has(name)) this.note(T.back(name), "log-back");
  }

  /** A line of our own in the log (not an engine event), said to screen readers too. */
  note(text, className) {
    const li = document.createElement("li");
    li.className = className;
    li.textContent = text;
    this.ui.log.prepend(li);
    this.keepLog();
    this.say(text);
  }

  /** After a game: the keyboard lands on the owner's next-game button (or the settlement),
   * unless the person was busy elsewhere on the page. */
  focusSettlement() {
    const active = document.activeElement;
    if (active && active !== document.body && !this.table.contains(active)) return;
    const next = this.ui.settlement.querySelector("[data-testid=next-game]");
    const target = next && !next.disabled ? next : this.ui.settlement;
    target.focus({ preventScroll: true });
  }

  refused(message) {
    this.pending = false;
    clearTimeout(this.pendingTimer);
    if (lateRefusal(this, message)) {
      this.render();
      return;
    }
    this.toast(`${T.refused}${message.message || message.code}`);
    this.render();
  }

  // -- rendering ------------------------------------------------------------------------------

  render() {
    let focus = this.focusKey();
    if (focus) this.savedFocus = focus;
    else if (document.activeElement === document.body) focus = this.savedFocus;
    const view = this.state && this.state.view;
    const playing = view && view.seat !== null && view.seat !== undefined;
    const phase = !view ? "waiting" : view.phase === "finished" ? "finished" : playing ? "playing" : "watching";
    this.table.dataset.phase = phase;
    const trump = this.trump;
    this.table.dataset.game = trump ? "trump_dobon" : "dobon_uno";
    if (trump) {
      const preset = (this.state && this.state.preset) || (this.room && this.room.preset);
      // Short in the bar (a phone's bar has no room for more); the whole name as its title.
      this.ui.rate.textContent = TT.presetShort[preset] || "";
      this.ui.rate.title = TT.presets[preset] || "";
    } else {
      this.ui.rate.textContent = view ? `${T.rate} ×${view.rate}` : this.room ? `${T.rate} ×${this.room.next_rate}` : "";
      renderRulesChip(this);  // house rules: Dobon UNO only
    }
    if (this.room && this.ui.unrated) this.ui.unrated.hidden = this.room.rated !== false;
    renderSeats(this);
    if (trump) {
      renderTrumpCenter(this);
      renderTrumpHand(this, view);
    } else {
      renderCenter(this);
      renderHand(this, view);
    }
    // The page's first Tab stop leads to the hand only while there is one to reach.
    const skip = document.querySelector('.skip-link[href="#hand"]');
    if (skip) skip.hidden = !(playing && view.hand && view.hand.length);
    if (trump) renderTrumpActions(this, view);
    else renderActions(this, view);
    renderSettlement(this);
    renderStamps(this);
    this.renderStatus();
    this.renderMe();
    if (this.ui["start-form"]) this.ui["start-form"].hidden = Boolean(view) || !this.ui.settlement.hidden;
    if (this.panel) this.panel.render(this.room, Boolean(this.state && this.state.status === "running"));
    this.showStartable();
    this.restoreFocus(focus);
    this.fitFelt();
    this.tick();
  }

  /** Give the felt whatever height is left once the hand, the clock and the buttons have
   * theirs, so that everything you can use now is on the first screen. */
  fitFelt() {
    const header = document.querySelector(".site-header");
    const parts = [header, this.table.querySelector(".tbar"), this.ui.me, this.ui.toast, this.ui.actions, this.ui.hand,
      window.innerWidth < 900 ? this.ui.stamps : null];
    const used = parts.reduce((sum, el) => sum + (el && el.offsetHeight ? el.offsetHeight + 4 : 0), 0);
    const room = window.innerHeight - used - 14;
    // A settlement may use the whole screen; a running table looks best up to 470 px.
    const cap = this.ui.settlement.hidden ? 470 : 900;
    const height = Math.max(190, Math.min(room, cap));
    this.ui.felt.style.height = `${height}px`;
    // Then measure: what still ends below the first screen (gaps, margins, a header that
    // wrapped) comes off the felt too, so the hand's box ends above the fold.
    const last = [this.ui.hand, this.ui.actions, window.innerWidth < 900 ? this.ui.stamps : null]
      .filter((el) => el && el.offsetHeight);
    if (!last.length) {
      placeStatus(this);
      return;
    }
    const bottom = Math.max(...last.map((el) => el.getBoundingClientRect().bottom + window.scrollY));
    const over = Math.ceil(bottom - window.innerHeight) + 2;
    if (over > 0) this.ui.felt.style.height = `${Math.max(190, height - over)}px`;
    placeStatus(this);
  }

  renderStatus() {
    const view = this.state && this.state.view;
    let text = "";
    if (!this.state) text = T.connecting;
    else if (!view) text = this.state.status === "aborted" ? T.aborted : this.ui.settlement.hidden ? T.waiting : "";
    else if (view.phase === "finished") text = T.finished;
    // A spectator's "watching" goes in the bar under the felt (renderMe): down here on
    // the felt it covered the bottom seat's plate.
    this.ui.status.textContent = text;
    this.ui.status.hidden = !text;
  }

  /** Your seat's kind: in the running game's players, else on the room's seats. */
  myKind() {
    const view = this.state && this.state.view;
    const seat = view ? view.seat : null;
    const player = seat !== null && seat !== undefined
      ? (this.state.players || []).find((p) => p.seat === seat) : null;
    if (player) return player.kind;
    const room = this.room || (this.state && this.state.room);
    const mine = room ? room.seats.find((s) => s && s.username === this.me) : null;
    return mine ? mine.kind : null;
  }

  renderMe() {
    const view = this.state && this.state.view;
    const mine = view && view.seat !== null && view.seat !== undefined ? view.seat : null;
    const name = (seat) => this.playerName(seat);
    const watching = view && mine === null && view.phase !== "finished";
    // A program playing your seat (a token socket of yours) is said on your own bar too.
    const me = this.myKind() === "program" ? `${this.me} · ${T.program}` : this.me;
    this.ui["me-name"].textContent = mine !== null ? `${me} · ${T.cards(view.hand.length)}${this.myTotal()}`
      : watching ? `${me} · ${T.watching}` : me;
    this.renderMyRating();
    let turn = "";
    if (view && view.phase === "auction") turn = TT.auction;
    else if (view && view.phase !== "finished") {
      const house = turnText(view, mine, name); // §H6.4's swap choice
      if (house) turn = house;
      else if (view.chooser !== null && view.chooser !== undefined) turn = view.chooser === mine ? T.youChoose : T.choosing(name(view.chooser));
      else if (view.turn !== null && view.turn !== undefined) turn = view.turn === mine ? T.yourTurn : T.theirTurn(name(view.turn));
    }
    this.ui.turn.textContent = turn;
    this.ui.me.classList.toggle("my-turn", Boolean(view) && mine !== null && (view.turn === mine || view.chooser === mine));
  }

  /** Your own rating and rank on your bar (docs/ratings.md): the plates skip your seat, so
   * without this a game against CPUs shows no rating anywhere. "?" while provisional, as the
   * plates and the room panel say it (the panel's seats[].rating). */
  renderMyRating() {
    const box = this.ui["me-rating"];
    if (!box) return;
    const seat = this.room && this.room.seats ? this.room.seats.find((s) => s && s.username === this.me) : null;
    // A person with no rated game yet has no rating line: provisional, so "?" too.
    const rating = seat && (seat.rating || (seat.kind === "cpu" ? null : { text: "?", label: "" }));
    box.textContent = rating ? (rating.label ? `${rating.text} ${rating.label}` : rating.text) : "";
    box.hidden = !rating;
  }

  /** Trump Dobon: " · total 980", your running match total (§T17); "" otherwise. */
  myTotal() {
    if (!this.trump || !this.room || !this.room.seats) return "";
    const seat = this.room.seats.find((s) => s && s.username === this.me);
    return seat && seat.points !== null && seat.points !== undefined ? ` · ${TT.myTotal(seat.points)}` : "";
  }

  playerName(seat) {
    const p = this.state && (this.state.players || []).find((x) => x.seat === seat);
    if (!p) return `#${seat + 1}`;
    return p.username === this.me ? T.you : p.username;
  }

  tick() {
    const view = this.state && this.state.view;
    const clock = this.ui.clock;
    const now = Date.now() / 1000 + this.offset;
    if (!view || view.phase === "finished" || !this.state.deadline) {
      clock.textContent = "";
      clock.hidden = true;
    } else {
      const left = Math.max(0, this.state.deadline - now);
      clock.hidden = false;
      clock.textContent = `${left.toFixed(1)}${T.seconds}`;
      clock.classList.toggle("low", left < 3);
      const bar = this.ui.actions.querySelector("[data-role=chance-bar]");
      if (bar) bar.style.transform = `scaleX(${Math.min(1, left / (view.timeout || 10))})`;
    }
    if (view && view.turn_deadline) {
      const fraction = (view.turn_deadline - now) / (view.timeout || 10);
      for (const plate of this.ui.players.querySelectorAll(".seat-plate.acting")) setRing(plate, fraction);
    }
  }

  log(event) {
    const entry = logEntry(event, (seat) => this.playerName(seat),
      this.trump ? (this.state && this.state.preset) || "au" : false);
    this.ui.log.prepend(entry);
    this.keepLog();
    if (SPOKEN.has(event.type)) this.say(entry.textContent);
  }

  /** Trim the log and keep it for this tab (sessionStorage), so a reload shows it again. */
  keepLog() {
    while (this.ui.log.children.length > LOG_LIMIT) this.ui.log.lastChild.remove();
    try {
      const items = [...this.ui.log.children].map((li) => [li.className, li.textContent]);
      sessionStorage.setItem(this.logKey(), JSON.stringify(items));
    } catch { /* private mode or full: the log just starts empty next time */ }
  }

  /** What only the finished game's own frame says (hands, the dobon, the caught play),
   * kept for this tab: after a reload the settlement comes from the room's last result,
   * which has the points but not these. */
  keepSettlement(message, hands) {
    const view = message.view || {};
    this.finishedHands = { game: message.game, hands, dobon: view.dobon || null, lastPlay: view.last_play || null };
    try {
      sessionStorage.setItem(`dobon-settle-${this.root.dataset.roomId}-${this.me}`, JSON.stringify(this.finishedHands));
    } catch { /* the settlement after a reload just says less */ }
  }

  restoreSettlement() {
    try {
      this.finishedHands = JSON.parse(sessionStorage.getItem(`dobon-settle-${this.root.dataset.roomId}-${this.me}`) || "null");
    } catch { this.finishedHands = null; }
  }

  logKey() { return `dobon-log-${this.root.dataset.roomId}-${this.me}`; }

  /** The log as this tab last showed it (a reload used to start it empty). */
  restoreLog() {
    try {
      const items = JSON.parse(sessionStorage.getItem(this.logKey()) || "[]");
      this.ui.log.replaceChildren(...items.map(([className, text]) => {
        const li = document.createElement("li");
        li.className = className;
        li.textContent = text;
        return li;
      }));
    } catch { /* nothing kept */ }
  }

  /** One line for screen readers, in the polite live log: what just happened, in words. */
  say(text) {
    const spoken = this.ui.spoken;
    if (!spoken || !text) return;
    const li = document.createElement("li");
    li.textContent = text;
    spoken.append(li);
    while (spoken.children.length > SPOKEN_LIMIT) spoken.firstChild.remove();
  }

  // A toast fades after 4 s; a `lasting` one (a refusal the player must read, such as a
  // start with too few players for the preset) stays until closed or replaced.
  toast(text, { lasting = false } = {}) {
    const toast = this.ui.toast;
    toast.textContent = text;
    toast.hidden = false;
    toast.classList.remove("fade");
    toast.classList.toggle("lasting", lasting);
    clearTimeout(this.toastTimer);
    clearTimeout(this.toastHide);
    if (lasting) {
      const close = document.createElement("button");
      close.type = "button";
      close.className = "toast-close";
      close.textContent = "×";
      close.setAttribute("aria-label", T.close);
      close.dataset.testid = "toast-close";
      close.addEventListener("click", () => { toast.hidden = true; this.fitFelt(); });
      toast.append(" ", close);
    } else {
      this.toastTimer = setTimeout(() => toast.classList.add("fade"), 3200);
      this.toastHide = setTimeout(() => { toast.hidden = true; this.fitFelt(); }, 4000);
    }
    this.fitFelt();
  }

  // -- motion, sound and speech ----------------------------------------------------------------

  seatElement(seat) {
    const view = this.state.view;
    if (view && seat === view.seat) return this.ui.hand;
    return this.ui.players.querySelector(`.seat-plate[data-seat="${seat}"]`);
  }

  animate(events, live) {
    if (!live) return;
    for (const e of events) {
      if (e.type === "play") {
        fly(this.face(e.cards[e.cards.length - 1]), this.seatElement(e.seat), this.ui.pile);
        this.sound.play(e.cut_in ? "cutin" : "play");
        if (e.cut_in) pulse(this.ui.pile, "shake");
        const face = this.trump ? "" : e.cards[0].slice(1);
        if (face === "R") pulse(this.ui.direction, "spin");
        if (face === "+2" || e.cards[0] === "W+4" || face === "S") pulse(this.ui.stack.hidden ? this.ui.pile : this.ui.stack);
      } else if (e.type === "draw" || e.type === "take") {
        fly(cardBack(), this.ui.deck, this.seatElement(e.seat));
        this.sound.play("draw");
      } else if (e.type === "dobon" || e.type === "return") {
        pulse(this.ui.felt, "flash");
        this.sound.play("dobon");
      } else if (e.type === "chance" && (e.kinds.includes("dobon") || e.kinds.includes("return"))) {
        this.sound.play("chance");
        vibrate([120, 60, 120]);
      } else if (e.type === "finished") {
        this.sound.play("end");
      }
    }
  }

  announce(old, message, events) {
    const view = message.view;
    if (!view) return;
    const said = (region, text) => { if (text) this.ui[region].textContent = text; };
    const wasTurn = old && old.view ? `${old.view.turn}/${old.view.chooser}` : null;
    const nowTurn = `${view.turn}/${view.chooser}`;
    if (wasTurn !== nowTurn) {
      said("announce", this.ui.turn.textContent);
      if (view.turn === view.seat && view.seat !== null && this.ui.turn.textContent) this.sound.play("turn");
    }
    const notices = events.map((e) => noticeFor(e, (seat) => this.playerName(seat))).filter(Boolean);
    if (notices.length) { said("announce", notices.join(" ")); if (events.length <= 4) this.toast(notices.join(" ")); }
    const chance = events.find((e) => e.type === "chance" && e.kinds.length);
    if (chance) said("alert", T.announceChance(chance.kinds.map((k) => T.chanceKinds[k]).join("・")));
  }

  // -- acting ----------------------------------------------------------------------------------

  act(action) {
    if (this.pending) return;
    // A prompt tapped after the game ended (the frame that closed it came first): nothing
    // to send, the server would only answer that no game is running.
    if (gameOver(this)) {
      this.render();
      return;
    }
    if (!this.socket.send({ type: "action", action })) {
      this.toast(T.reconnecting);
      return;
    }
    // Until the next state: no second click, so no confusing refusal for a double tap.
    this.pending = true;
    this.selected = [];
    this.trumpChoice = null;
    this.pendingTimer = setTimeout(() => { this.pending = false; this.render(); }, PENDING_MS);
    this.render();
  }

  tapCard(index) {
    if (this.pending || !this.state || !this.state.view) return;
    const result = this.trump ? trumpTap(this, index) : tapResult(this, index);
    if (result.action) this.act(result.action);
    else if (result.rendered) this.render();
    else if (result.select) {
      this.selected = result.select;
      this.render();
    } else if (result.refuse) this.toast(result.refuse);
  }

  clearSelection() {
    this.selected = [];
    this.render();
  }

  keepSelection() {
    // A state change may remove selected cards; the selection is kept only while the
    // same cards are still there and may still be played.
    const hand = this.state.view && this.state.view.hand;
    if (!hand || !(this.state.view.legal_actions || []).some((a) => a.type === "play")) this.selected = [];
    else this.selected = this.selected.filter((i) => i < hand.length);
  }

  async startNextGame() {
    if (!this.startUrl || this.starting) return;
    const token = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
    this.starting = true;
    this.render();
    try {
      const body = new FormData();
      body.append("csrfmiddlewaretoken", token);
      const response = await fetch(this.startUrl, { method: "POST", body, credentials: "same-origin" });
      // The view answers with the room page; its message list says what went wrong.
      const html = await response.text();
      const error = new DOMParser().parseFromString(html, "text/html").querySelector(".message-error");
      if (!response.ok || error) {
        this.toast(`${T.startFailed}: ${error ? error.textContent.trim() : response.status}`, { lasting: true });
      }
    } catch {
      this.toast(T.startFailed, { lasting: true });
    } finally {
      this.starting = false;
      this.render();
    }
    // The new game arrives over the socket like every other change.
  }

  toggleSound() {
    this.sound.toggle();
    this.showSound();
  }

  showSound() {
    const b = this.ui["sound-toggle"];
    b.setAttribute("aria-pressed", String(this.sound.enabled));
    b.title = this.sound.enabled ? T.soundOn : T.soundOff;
    b.classList.toggle("muted-sound", !this.sound.enabled);
  }

  // -- keyboard and focus -----------------------------------------------------------------------

  key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = (e.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag)) return;
    if (!this.ui.help.hidden) {
      if (e.key === "Escape" || e.key === "?") { e.preventDefault(); this.closeHelp(); }
      // A modal dialog keeps the focus: Tab goes round its own buttons only.
      if (e.key === "Tab") { e.preventDefault(); this.ui["help-close"].focus(); }
      return;
    }
    // Shift+1…8: a stamp (e.code, so that the keyboard layout's shifted symbol does not matter).
    const digit = /^Digit([1-8])$/.exec(e.code || "");
    if (e.shiftKey && digit) { e.preventDefault(); sendStamp(this, STAMPS[Number(digit[1]) - 1]); return; }
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (k === "?") { e.preventDefault(); this.openHelp(); return; }
    if (k === "Escape") {
      if (this.trumpChoice) { this.trumpChoice = null; this.render(); }
      if (this.selected.length) this.clearSelection();
      return;
    }
    if (k === "m") { this.toggleSound(); return; }
    if (k === "h") { e.preventDefault(); this.focusHand(0); return; }
    if ((k === "ArrowLeft" || k === "ArrowRight" || k === "Home" || k === "End") && this.ui.hand.contains(document.activeElement)) {
      e.preventDefault();
      const cards = [...this.ui.hand.querySelectorAll("[data-card]")];
      const at = cards.indexOf(document.activeElement);
      const to = k === "Home" ? 0 : k === "End" ? cards.length - 1 : at + (k === "ArrowLeft" ? -1 : 1);
      this.focusHand(Math.max(0, Math.min(cards.length - 1, to)));
      return;
    }
    const keys = this.trump ? TRUMP_KEYS : KEYS;
    const act = keys[k];
    let target = act ? this.ui.actions.querySelector(`[data-action="${act}"]`) : null;
    if (!target && act && this.trump) target = this.ui.actions.querySelector(`[data-action^="${act}"]`);
    if (!target && this.trump && SUIT_KEYS[k]) target = this.ui.actions.querySelector(`[data-suit="${SUIT_KEYS[k]}"]`);
    else if (!target && !this.trump && COLOR_KEYS[k]) target = this.ui.actions.querySelector(`[data-color="${COLOR_KEYS[k]}"]`);
    if (!target && !this.trump && /^[1-8]$/.test(k)) target = this.ui.actions.querySelector(`[data-key="${k}"]`); // §H6.4 swap targets
    if (target && !target.disabled) {
      e.preventDefault();
      target.click();
    }
  }

  focusHand(index) {
    const cards = this.ui.hand.querySelectorAll("[data-card]");
    if (cards.length) cards[Math.min(index, cards.length - 1)].focus();
  }

  openHelp() {
    this.helpKeys();  // the game may have changed since the page opened (trump keys)
    if (!this.helpTrap) {
      // Focus that escapes the open dialog (a click behind it, a screen reader's jump) returns.
      this.helpTrap = true;
      document.addEventListener("focusin", (e) => {
        if (!this.ui.help.hidden && !this.ui.help.contains(e.target)) this.ui["help-close"].focus();
      });
    }
    this.helpReturn = document.activeElement;
    this.ui.help.hidden = false;
    this.ui["help-close"].focus();
  }

  closeHelp() {
    this.ui.help.hidden = true;
    if (this.helpReturn && this.helpReturn.isConnected) this.helpReturn.focus();
  }

  /** What has the focus inside the table, described so that it can be found again. */
  focusKey() {
    const active = document.activeElement;
    if (!active || !this.table.contains(active)) return null;
    if (active.dataset.card && this.ui.hand.contains(active)) return { hand: Number(active.dataset.index), card: active.dataset.card };
    if (active.dataset.action) return { selector: `[data-action="${active.dataset.action}"]` };
    if (active.dataset.color) return { selector: `[data-color="${active.dataset.color}"]`, fallback: true };
    if (active.dataset.testid) return { selector: `[data-testid="${active.dataset.testid}"]` };
    return null;
  }

  restoreFocus(key) {
    if (!key || this.table.contains(document.activeElement)) return;
    if (key.selector) {
      const same = this.table.querySelector(key.selector);
      if (same && !same.hidden && !same.disabled) { same.focus({ preventScroll: true }); return; }
    }
    const hand = [...this.ui.hand.querySelectorAll("[data-card]")];
    if (key.card) {
      // The same card if it is still there, else its neighbour: keyboard players keep their place.
      const same = hand.find((c) => c.dataset.card === key.card);
      const target = same || hand[Math.min(key.hand, hand.length - 1)];
      if (target) { target.focus({ preventScroll: true }); return; }
    }
    const first = this.ui.actions.querySelector("button:not([disabled])") || hand[0];
    if (first) first.focus({ preventScroll: true });
    if (this.table.contains(document.activeElement)) this.savedFocus = null;
  }
}
