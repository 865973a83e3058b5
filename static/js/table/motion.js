// Short moves (≤ 300 ms) with the Web Animations API: transform and opacity only, and
// nothing at all under prefers-reduced-motion. Events decide the moves; the state has
// already put everything where it belongs, so a skipped animation leaves no wrong table.

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

export function motionAllowed() { return !reduced.matches; }

/** Fly a copy of `ghost` from the centre of `fromEl` onto `toEl`. */
export function fly(ghost, fromEl, toEl, duration = 280) {
  if (!motionAllowed() || !fromEl || !toEl) return;
  const from = fromEl.getBoundingClientRect();
  const to = toEl.getBoundingClientRect();
  if (!from.width || !to.width) return;
  ghost.classList.add("flying");
  ghost.setAttribute("aria-hidden", "true");
  document.body.append(ghost);
  const left = to.left + to.width / 2 - ghost.offsetWidth / 2;
  const top = to.top + to.height / 2 - ghost.offsetHeight / 2;
  ghost.style.left = `${left}px`;
  ghost.style.top = `${top}px`;
  const dx = from.left + from.width / 2 - (left + ghost.offsetWidth / 2);
  const dy = from.top + from.height / 2 - (top + ghost.offsetHeight / 2);
  const anim = ghost.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(.6)`, opacity: 0.6 },
     { transform: "translate(0, 0) scale(1)", opacity: 1 }],
    { duration, easing: "cubic-bezier(.2,.8,.3,1)" },
  );
  anim.onfinish = () => ghost.remove();
  anim.oncancel = () => ghost.remove();
}

/** A short emphasis on an element (a skip, a reverse, a stack, a dobon). */
export function pulse(el, kind = "pulse") {
  if (!motionAllowed() || !el) return;
  const frames = {
    pulse: [{ transform: "scale(1)" }, { transform: "scale(1.15)" }, { transform: "scale(1)" }],
    shake: [{ transform: "translateX(0)" }, { transform: "translateX(-6px)" },
            { transform: "translateX(6px)" }, { transform: "translateX(0)" }],
    spin: [{ transform: "rotate(0deg)" }, { transform: "rotate(180deg)" }],
    flash: [{ opacity: 1 }, { opacity: 0.3 }, { opacity: 1 }],
  }[kind];
  el.animate(frames, { duration: kind === "spin" ? 300 : 260, easing: "ease-out" });
}
