// The room panel below the table, kept live from the `room` object of protocol v2: the
// running-game badge, the next rate and the owner's settings link are written here; when
// the seating (or whether a game runs) changes, the seat list is fetched again from the
// server, which alone decides who may take, move or manage a seat; when the standings
// change, so is the room's standings table (game/history/_standings_panel.html), which
// the server alone draws.

// What is fetched again: [where on the page, data-role].
const FETCHED = [
  ["#room-panel", "room-seats"],
  ["#room-panel", "seats-note"],
  ["#room-panel", "room-owner"],
  ["#room-panel", "trump-match"],
  ["#room-panel", "room-game"],
  ["#standings", "room-standings"],
];

export class RoomPanel {
  constructor(panel) {
    this.panel = panel;
    this.role = (name) => panel.querySelector(`[data-role="${name}"]`);
    this.seating = null;
    this.standings = null;
    this.fetching = null;
    this.again = false;
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
    // The game kind and preset too: the owner's switch rewrites the panel's Game row.
    const seating = JSON.stringify([running, room.owner, room.seats.map((s) => s && [s.username, s.kind]),
      room.game_kind, room.preset]);
    const standings = JSON.stringify(room.standings || null);
    const moved = this.seating !== null && seating !== this.seating;
    const scored = this.standings !== null && standings !== this.standings;
    if (moved || scored) this.refresh();
    this.seating = seating;
    this.standings = standings;
  }

  toggle(role, shown) {
    const node = this.role(role);
    if (node) node.hidden = !shown;
  }

  /** The server's own seat list (with its forms and CSRF tokens) and standings, without
   * a reload. A change seen while a fetch runs fetches once more after it. */
  async refresh() {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = fetch(window.location.pathname, { credentials: "same-origin" });
    try {
      const html = await (await this.fetching).text();
      const fresh = new DOMParser().parseFromString(html, "text/html");
      for (const [where, role] of FETCHED) {
        const selector = `${where} [data-role="${role}"]`;
        const now = document.querySelector(selector);
        const next = fresh.querySelector(selector);
        if (now && next) now.replaceWith(document.importNode(next, true));
      }
    } catch {
      // Offline for a moment: the next room change tries again.
    } finally {
      this.fetching = null;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }
}
