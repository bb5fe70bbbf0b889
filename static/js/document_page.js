// What the two document pages share (document.js, contrastive_document.js): the sliders,
// the time per segment and the page's submit. A classic script that defines
// window.DocumentPage and nothing else; load it (defer) before the page's own script.
//
//   DocumentPage.linkSliders(form)
//     each number box drives its slider (the slider is the mouse's way, the box the keys').
//   const tick = DocumentPage.timeSegments(form, segments, idleCap)
//     segments: [{ row, ms }]; the time between two actions (key, click, focus) counts for
//     the segment they were in (its `ms`), an idle gap at most idleCap ms; the segment
//     acted in gets the class `active`. tick(null) closes the running gap (before submit).
//   DocumentPage.submitOnce({ form, draft, problem, fill })
//     the form's submit and Ctrl+Enter send the page once, by fetch: problem() gives
//     { message, focus } when the page is not ready (said, focus moved), else null;
//     fill() writes the answers into the form; draft (SpanEditor.drafts) is dropped once
//     the page is recorded or refused for good (409).
"use strict";

window.DocumentPage = (function () {
  const linkSliders = (form) => {
    form.querySelectorAll(".slider-row").forEach((row) => {
      const range = row.querySelector("input[type=range]");
      const box = row.querySelector("input.score-box");
      if (!range || !box) return;
      range.addEventListener("input", () => {
        box.value = range.value;
        box.dispatchEvent(new Event("input", { bubbles: true }));
      });
      box.addEventListener("input", () => {
        range.classList.toggle("unset", box.value === "");
        if (box.value !== "") range.value = box.value;
      });
    });
  };

  const timeSegments = (form, segments, idleCap) => {
    let current = null;
    let last = performance.now();
    const tick = (next) => {
      const now = performance.now();
      if (current) current.ms += Math.min(now - last, idleCap);
      last = now;
      current = next;
    };
    ["keydown", "pointerdown", "focusin"].forEach((type) => {
      form.addEventListener(type, (event) => {
        const segment = segments.find((s) => s.row.contains(event.target)) || null;
        tick(segment);
        segments.forEach((s) => s.row.classList.toggle("active", s === segment));
      }, true);
    });
    return tick;
  };

  const submitOnce = ({ form, draft, problem, fill }) => {
    const status = document.getElementById("submit-status");
    const submitButton = form.querySelector("button[type=submit]");
    const say = (message, kind) => {
      status.hidden = false;
      status.className = `submit-status ${kind || ""}`;
      status.textContent = message;
    };
    let sending = false;
    const submit = async () => {
      if (sending) return;
      const unready = problem();
      if (unready) {
        say(unready.message, "error");
        unready.focus.focus();
        return;
      }
      fill();
      sending = true;
      submitButton.disabled = true;
      say("Saving…");
      try {
        const response = await fetch(form.action, {
          method: "POST",
          body: new FormData(form),
          headers: { "X-Requested-With": "fetch", Accept: "application/json" },
          credentials: "same-origin",
        });
        const body = await response.json();
        if (response.ok) {
          draft.remove();
          say(body.status === "recorded" ? "Saved." : "Already saved.");
          window.location.assign(body.next);
          return;
        }
        say(body.error || "Not saved.", "error");
        if (response.status === 409) draft.remove();
      } catch (error) {
        say("Not saved: the connection was lost. Your marks are kept here; submit again.", "retrying");
      }
      sending = false;
      submitButton.disabled = false;
    };
    form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); submit(); }
    });
  };

  return { linkSliders, timeSegments, submitOnce };
})();
