// "?" opens or closes the task's instructions on an item page (not while typing).
(() => {
  const panel = document.getElementById("instructions");
  if (!panel) return;
  document.addEventListener("keydown", (event) => {
    if (event.key !== "?") return;
    const target = event.target;
    if (target instanceof HTMLElement && target.matches("textarea, input[type=text], select")) return;
    event.preventDefault();
    event.stopPropagation();
    panel.open = !panel.open;
    if (panel.open) panel.querySelector("summary").focus();
  }, true);
})();
