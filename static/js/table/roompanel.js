// The room panel below the table, kept live from the `room` object of protocol v2: the
// running-game badge, the next rate, the standings and the owner's settings link are
// written here; when the seating (or whether a game runs) changes, the seat list is
// fetched again from the server, which alone decides who may take, move or manage a seat.

import { el } from "../dom.js";
import { T } from "./strings.js";

export class RoomPanel {
  constructor(panel) {
    this.panel = panel;
    this.role = (name) => panel.querySelector(`[data-role="${name}"]`);
    this.seating = null;
    this.fetching = null;
  }

  render(room, runningNow) {
    if (!room || !this.panel) return;
    // v2 says it in the room object; before that, the table's own status tells.
    const running = room.running_game !== undefined ? Boolean(room.running_game) : runningNow;
    this.toggle("room-badge", running);
    this.toggle("settings-link", !running);
    this.toggle("settings-note", running);
    const seated = room.seats.filter(Boolean);
    const occupancy = this.role("room-occupancy");
    if (occupancy) occupancy.textContent = `${seated.length}/${room.seat_count}`;
    const rate = this.role("room-rate");
    if (rate) rate.textContent = `×${room.next_rate}`;
    this.renderStandings(room);
    const seating = JSON.stringify([running, room.owner, room.seats.map((s) => s && [s.username, s.kind])]);
    if (this.seating !== null && seating !== this.seating) this.refreshSeats();
    this.seating = seating;
  }

  toggle(role, shown) {
    const node = this.role(role);
    if (node) node.hidden = !shown;
  }

  /** The server's own seat list (with its forms and CSRF tokens), without a reload. */
  async refreshSeats() {
    if (this.fetching) return;
    this.fetching = fetch(window.location.pathname, { credentials: "same-origin" });
    try {
      const html = await (await this.fetching).text();
      const fresh = new DOMParser().parseFromString(html, "text/html");
      for (const role of ["room-seats", "seats-note", "room-owner"]) {
        const now = this.role(role);
        const next = fresh.querySelector(`#room-panel [data-role="${role}"]`);
        if (now && next) now.replaceWith(document.importNode(next, true));
      }
    } catch {
      // Offline for a moment: the next room change tries again.
    } finally {
      this.fetching = null;
    }
  }

  renderStandings(room) {
    const table = this.role("room-standings");
    if (!table) return;
    const rows = room.standings || room.seats.filter(Boolean).map((s) => ({ ...s, games: null }));
    const body = el("tbody");
    for (const row of [...rows].sort((a, b) => b.points - a.points)) {
      const tr = el("tr");
      const name = el("td", "", row.username);
      if (row.kind && row.kind !== "human") name.append(" ", el("span", "badge badge-kind", T[row.kind] || row.kind));
      tr.append(name, el("td", row.points < 0 ? "neg" : "", String(row.points)),
        el("td", "", row.games === null || row.games === undefined ? "—" : String(row.games)));
      body.append(tr);
    }
    table.querySelector("tbody").replaceWith(body);
  }
}
