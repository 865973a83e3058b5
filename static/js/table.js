// Entry point of the room page's live table (no build step: plain ES modules).
import { TableApp } from "./table/app.js";
import { cardLabel } from "./cards.js";

const root = document.getElementById("table");
if (root && root.dataset.wsUrl) {
  const app = new TableApp(root);
  app.start();
  // For the console and the browser tests (which check that no hidden card's name leaks).
  window.dobonTable = app;
  window.dobonCardLabel = cardLabel;
}
