// Entry point of the room page's live table (no build step: plain ES modules).
import { TableApp } from "./table/app.js";
import { cardLabel } from "./cards.js";

const root = document.getElementById("table");
if (root && root.dataset.wsUrl) {
  const app = new TableApp(root);
  app.start();
  // The page's messages ("Room ready", "You sat down") go to the table's own toast, in
  // the flow above the buttons, instead of floating over the top seat for 4 seconds.
  const flash = document.querySelector(".messages");
  if (flash) {
    const text = [...flash.querySelectorAll("li")].map((li) => li.textContent.trim()).join(" ");
    flash.remove();
    if (text) app.toast(text);
  }
  // For the console and the browser tests (which check that no hidden card's name leaks).
  window.dobonTable = app;
  window.dobonCardLabel = cardLabel;
}
