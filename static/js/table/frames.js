// Which `state` frames the table takes, and how (docs/protocol.md): pure, so that the
// rules run under Node too (tests/js/frames.test.mjs).
//
// After a reconnect the server sends its current table at once, and the table's resuming
// `sync` (the game and version it holds) is answered after it. When the game the table
// held ended meanwhile, that answer is two frames: the ended game's catch-up (its end,
// with the events the table missed), then the current table again. The table skips the
// first table of the new connection when it is another game's, so that it shows what a
// live socket shows: its game's end, then the next game.

/** The verdict on `message` for a table showing `old`:
 * - "connect": the new connection's first table, of another game than the one being
 *   resumed (`resuming`: that game's id, or null): the sync's answer brings it again,
 *   after the end of the game held;
 * - "old": an older frame of the game shown (overtaken): dropped;
 * - "gap": versions are missing in between: ask for them (a resuming sync);
 * - "room": no game is running, and the game shown is the finished game the room's last
 *   result names: keep its table (its settlement) and take the room panel only, as a
 *   table that saw the end live would;
 * - "apply": take the frame. */
export function frameVerdict(old, message, resuming = null) {
  if (resuming !== null && message.game !== resuming) return "connect";
  const sameGame = Boolean(old) && message.game !== null && old.game === message.game;
  // An old frame, overtaken (a private step of this seat keeps the version: protocol.md).
  if (sameGame && (message.version < old.version
    || (message.version === old.version && (message.private || 0) < (old.private || 0)))) return "old";
  if (sameGame && message.from_version !== undefined && message.from_version > old.version) return "gap";
  if (message.game === null && showsLastResult(old, message.room)) return "room";
  return "apply";
}

/** The game to resume after a reconnect: the one shown while it still ran (a finished or
 * aborted game has nothing more to bring), else null. */
export function resumeTarget(state) {
  if (!state || !state.game || state.status !== "running") return null;
  return state.game;
}

function showsLastResult(old, room) {
  const last = room && room.last_result;
  return Boolean(old && old.view && old.view.phase === "finished" && last && last.game === old.game);
}
