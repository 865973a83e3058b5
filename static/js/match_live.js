// The match page follows a running match: every few seconds it fetches the page's
// changing part (`?part=live`, rendered by the server) and stops once that part says the
// match is over. No socket: a match page may stay open for hours, and a short GET is
// cheap and can always be repeated.
//
// It asks only for what it lacks: `after=<number of the last finished game it shows>`.
// The answer carries the progress and standings (a few rows, read from stored totals)
// and the games after that one; their rows replace the page's running row and are
// appended. So a poll costs the same on the 1,000th game as on the first.

const PERIOD_MS = 3000;
const root = document.getElementById("match-live");

function state(container) {
  return container.querySelector("[data-role=match-state]");
}

function running(container) {
  const found = state(container);
  return Boolean(found && found.dataset.running === "true");
}

function gameRows(container) {
  return container.querySelector("[data-role=match-game-rows]");
}

// The number of the last finished game the page shows, or null (then ask for all).
function lastFinished() {
  const rows = gameRows(root);
  if (!rows) return null;
  const done = [...rows.querySelectorAll("tr[data-number]")]
    .filter((row) => row.dataset.running !== "true");
  return done.length ? done[done.length - 1].dataset.number : null;
}

// A swap would drop keyboard focus on the page body: put it back on the same link.
function focusKey() {
  const el = document.activeElement;
  if (!el || !root.contains(el)) return null;
  return el.getAttribute("href") || el.id || null;
}

function refocus(key) {
  if (!key) return;
  const match = [...root.querySelectorAll("a[href], [id]")]
    .find((el) => el.getAttribute("href") === key || el.id === key);
  if (match) match.focus();
}

// Fold a partial answer into the page: new summary and standings, new game rows.
function merge(fresh) {
  const old = state(root);
  const next = state(fresh);
  old.dataset.running = next.dataset.running;
  for (const id of ["match-summary", "match-standings"]) {
    const mine = root.querySelector(`#${id}`);
    const theirs = fresh.querySelector(`#${id}`);
    if (mine && theirs) mine.replaceWith(theirs);
  }
  const rows = gameRows(root);
  rows.querySelectorAll("tr[data-running=true]").forEach((row) => row.remove());
  const added = gameRows(fresh);
  if (added) rows.append(...added.children);
}

async function refresh() {
  const url = new URL(root.dataset.liveUrl, window.location.href);
  const after = lastFinished();
  if (after !== null) url.searchParams.set("after", after);
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "text/html" },
  });
  if (!response.ok) throw new Error(`match page answered ${response.status}`);
  const html = await response.text();
  const key = focusKey();
  const fresh = document.createElement("div");
  fresh.innerHTML = html;  // parsed, not inserted: no script runs
  if (after !== null && state(fresh)?.dataset.partial === "true" && gameRows(root)) {
    merge(fresh);
  } else {
    root.replaceChildren(...fresh.children);
  }
  refocus(key);
}

function tick() {
  if (document.hidden) {  // a background tab asks again when it is shown
    document.addEventListener("visibilitychange", tick, { once: true });
    return;
  }
  refresh()
    .catch(() => {})  // a network hiccup: the next round tries again
    .finally(() => { if (running(root)) setTimeout(tick, PERIOD_MS); });
}

if (root && root.dataset.liveUrl && running(root)) setTimeout(tick, PERIOD_MS);
