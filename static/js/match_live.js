// The match page follows a running match: every few seconds it fetches the page's
// changing part (progress, standings, games: `?part=live`, rendered by the server) and
// swaps it in; it stops once that part says the match is over. No socket: a match page
// may stay open for hours, and a short GET is cheap and can always be repeated.

const PERIOD_MS = 3000;
const root = document.getElementById("match-live");

function running(container) {
  const state = container.querySelector("[data-role=match-state]");
  return Boolean(state && state.dataset.running === "true");
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

async function refresh() {
  const response = await fetch(root.dataset.liveUrl, {
    credentials: "same-origin",
    headers: { Accept: "text/html" },
  });
  if (!response.ok) throw new Error(`match page answered ${response.status}`);
  const html = await response.text();
  const key = focusKey();
  root.innerHTML = html;
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
