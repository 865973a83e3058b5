// A table wider than the phone's screen says so: each .table-scroll that can scroll
// sideways gets a visible "scroll →" cue (and shadows, table.css/history.css) until it is
// scrolled to its end. Without this module the table still scrolls.

const HINT = document.documentElement.lang.startsWith("en") ? "Scroll sideways for more →" : "横にスクロールできます →";

function update(box, hint) {
  const more = box.scrollWidth - box.clientWidth > 2;
  const atEnd = box.scrollLeft + box.clientWidth >= box.scrollWidth - 2;
  box.classList.toggle("scrolls", more);
  hint.hidden = !more || atEnd;
}

for (const box of document.querySelectorAll(".table-scroll")) {
  const hint = document.createElement("p");
  hint.className = "scroll-hint";
  hint.dataset.testid = "scroll-hint";
  hint.setAttribute("aria-hidden", "true");  // the table reads whole to a screen reader
  hint.textContent = HINT;
  box.before(hint);
  const again = () => update(box, hint);
  box.addEventListener("scroll", again, { passive: true });
  window.addEventListener("resize", again);
  again();
}
