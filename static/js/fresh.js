// Pages that list live state (the lobby: your rooms, games on, free seats) are reloaded
// when the browser brings them back from its back-forward cache: Back from a game would
// otherwise show the lobby as it was before the game, e.g. "you are not in any room yet".
// The server also sends these pages with Cache-Control: no-store, which keeps them out of
// the HTTP cache; the back-forward cache may still keep them, hence this.

window.addEventListener("pageshow", (event) => {
  if (event.persisted) window.location.reload();
});
