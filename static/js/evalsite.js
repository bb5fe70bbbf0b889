// evalsite's one script: keyboard shortcuts, drag and drop, and polling of job progress.
"use strict";

(function () {
  // Drop files onto the upload zone.
  const zone = document.getElementById("dropzone");
  if (zone) {
    const input = zone.querySelector("input[type=file]");
    ["dragenter", "dragover"].forEach((type) => zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add("over");
    }));
    ["dragleave", "drop"].forEach((type) => zone.addEventListener(type, () => zone.classList.remove("over")));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      input.files = event.dataTransfer.files;
    });
  }

  // Refresh the systems table while any metrics job is unfinished.
  const systems = document.querySelector("[data-poll]");
  if (systems) {
    const refresh = async () => {
      const table = systems.querySelector("[data-running]");
      if (!table || !table.dataset.running) return;
      const response = await fetch(systems.dataset.poll, { headers: { "X-Requested-With": "fetch" } });
      if (response.ok) systems.innerHTML = await response.text();
      setTimeout(refresh, 1500);
    };
    setTimeout(refresh, 1500);
  }
})();
