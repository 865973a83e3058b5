// The header's menu button: where the stylesheet folds the header (every page on a
// phone, whose first screen belongs to the page's own content), the button opens and closes the
// links and the language switch. Without this module the button stays hidden and the
// header simply wraps.

const header = document.querySelector(".site-header");
const button = header && header.querySelector(".menu-toggle");
const menu = button && document.getElementById(button.getAttribute("aria-controls"));

function setOpen(open) {
  button.setAttribute("aria-expanded", String(open));
  menu.classList.toggle("open", open);
}

if (menu) {
  button.hidden = false;
  header.classList.add("menu-ready");
  button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && menu.classList.contains("open")) {
      setOpen(false);
      button.focus();
    }
  });
}
