// Copy and share buttons. Copy buttons: <button data-copy="ID"> copies the value of the field with that id.
// A [data-copy-status=ID] element, if any, says so for screen readers (the button's
// own label changes for the eyes).
// The button stays hidden without this module (the field is still selectable).

function copyFrom(field) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(field.value);
  }
  // Plain-HTTP pages have no clipboard API: select the text and use the old command.
  field.select();
  return document.execCommand("copy") ? Promise.resolve() : Promise.reject(new Error("copy"));
}

function wire(button) {
  const field = document.getElementById(button.dataset.copy);
  if (!field) return;
  const status = document.querySelector(`[data-copy-status="${button.dataset.copy}"]`);
  const label = button.textContent;
  button.hidden = false;
  field.addEventListener("focus", () => field.select());
  button.addEventListener("click", () => {
    copyFrom(field).then(
      () => {
        button.textContent = button.dataset.copied || label;
        if (status) status.textContent = button.dataset.copied || "";
        setTimeout(() => {
          button.textContent = label;
          if (status) status.textContent = "";
        }, 2000);
      },
      () => field.select(),  // the person copies it by hand
    );
  });
}

document.querySelectorAll("button[data-copy]").forEach(wire);

// Share buttons: <button data-share="ID" data-share-title data-share-text> hands the
// field's URL to the system's share sheet (Web Share API), shown only where it exists.
function wireShare(button) {
  const field = document.getElementById(button.dataset.share);
  if (!field || typeof navigator.share !== "function") return;
  button.hidden = false;
  button.addEventListener("click", () => {
    navigator.share({ title: button.dataset.shareTitle || document.title, text: button.dataset.shareText || "", url: field.value })
      .catch(() => {});  // the person closed the sheet: nothing to say
  });
}

document.querySelectorAll("button[data-share]").forEach(wireShare);
