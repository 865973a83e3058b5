// The one DOM helper of the browser code (table, replay): a new element with an
// optional class and text. Text is set as text, never parsed as HTML.

/** `el("span", "badge", "CPU")` → <span class="badge">CPU</span>. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
