// The room panel below the table, kept live from the `room` object of protocol v2:
// the running-game badge, seats, standings, the next rate, and which owner controls
// apply now. The server drew it once; this keeps it true without a reload.

import { T } from "./strings.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export class RoomPanel {
  constructor(panel, { me, isOwner }) {
    this.panel = panel;
    this.me = me;
    this.isOwner = isOwner;
    this.role = (name) => panel.querySelector(`[data-role="${name}"]`);
    this.csrf = (panel.querySelector("input[name=csrfmiddlewaretoken]") || document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
    // Members the server knew when it drew the page: username → user id, for the owner's links.
    this.ids = new Map([...panel.querySelectorAll("[data-username]")].map((li) => [li.dataset.username, li.dataset.userId]));
  }

  render(room, runningNow) {
    if (!room || !this.panel) return;
    // v2 says it in the room object; before that, the table's own status tells.
    const running = room.running_game !== undefined ? Boolean(room.running_game) : runningNow;
    this.toggle("room-badge", running);
    this.toggle("settings-link", !running);
    this.toggle("settings-note", running);
    this.toggle("seats-note", running);
    const seated = room.seats.filter(Boolean);
    const occupancy = this.role("room-occupancy");
    if (occupancy) occupancy.textContent = `${seated.length}/${room.seat_count}`;
    const rate = this.role("room-rate");
    if (rate) rate.textContent = `×${room.next_rate}`;
    const owner = this.role("room-owner");
    if (owner && room.owner && owner.textContent.trim() !== room.owner) owner.textContent = room.owner;
    this.renderSeats(room, running);
    this.renderStandings(room);
  }

  toggle(role, shown) {
    const node = this.role(role);
    if (node) node.hidden = !shown;
  }

  renderSeats(room, running) {
    const list = this.role("room-seats");
    if (!list) return;
    const iSit = room.seats.some((s) => s && s.username === this.me);
    list.replaceChildren(...room.seats.map((seat, index) => {
      const li = el("li", `seat ${seat ? "seat-taken" : "seat-free"}${seat && seat.username === this.me ? " seat-mine" : ""}`);
      li.dataset.seat = index;
      li.append(el("span", "seat-number", T.seat(index + 1)));
      if (seat) {
        const who = el("span", "seat-player", seat.username);
        if (seat.kind && seat.kind !== "human") who.append(" ", el("span", "badge badge-kind", T[seat.kind] || seat.kind));
        if (seat.username === room.owner) who.append(" ", el("span", "badge", T.owner));
        if (seat.username === this.me) who.append(" ", el("span", "badge badge-you", T.you));
        who.append(" ", el("span", "muted small", T.points(seat.points || 0)));
        li.append(who);
        if (this.isOwner && seat.username !== this.me && this.ids.has(seat.username)) li.append(this.ownerLinks(seat.username));
      } else {
        li.append(el("span", "seat-player muted", T.free));
        if (!running || !iSit) li.append(this.seatForm(index, iSit));
      }
      return li;
    }));
  }

  ownerLinks(username) {
    const id = this.ids.get(username);
    const box = el("span", "seat-actions");
    const link = (url, text, extra) => {
      const a = el("a", `button small${extra}`, text);
      a.href = url.replace("/members/0/", `/members/${id}/`);
      return a;
    };
    box.append(link(this.panel.dataset.ownerUrl, T.makeOwner, ""), link(this.panel.dataset.removeUrl, T.remove, " danger"));
    return box;
  }

  seatForm(index, iSit) {
    const form = el("form", "inline-form");
    form.method = "post";
    form.action = this.panel.dataset.takeSeatUrl;
    const hidden = (name, value) => {
      const input = el("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      return input;
    };
    const button = el("button", "button small", iSit ? T.moveHere : T.takeSeat);
    button.type = "submit";
    button.dataset.testid = `take-seat-${index}`;
    form.append(hidden("csrfmiddlewaretoken", this.csrf), hidden("seat_index", index), button);
    return form;
  }

  renderStandings(room) {
    const table = this.role("room-standings");
    if (!table) return;
    const rows = room.standings || room.seats.filter(Boolean).map((s) => ({ ...s, games: null }));
    const body = el("tbody");
    for (const row of [...rows].sort((a, b) => b.points - a.points)) {
      const tr = el("tr");
      tr.append(el("td", "", row.username), el("td", row.points < 0 ? "neg" : "", String(row.points)),
        el("td", "", row.games === null || row.games === undefined ? "—" : String(row.games)));
      body.append(tr);
    }
    table.querySelector("tbody").replaceWith(body);
  }
}
