// The segment screen of ESA, ESA with pre-filled spans and MQM: one translation marked with
// the span editor (span_editor.js), then scored (ESA) or scored from its errors (MQM). The
// spans travel to the server as JSON in the hidden "spans" field, which checks them again.
"use strict";

(function () {
  const box = document.getElementById("span-editor");
  if (!box) return;
  const form = document.getElementById("judgment");
  const field = form.querySelector('input[name="spans"]');
  const picker = document.getElementById("mqm-category");
  const warning = document.getElementById("esa-warning");
  const scoreBox = form.querySelector('input[name="score"]');
  const scoreOut = document.getElementById("mqm-score");
  const weights = scoreOut && scoreOut.dataset.weights ? JSON.parse(scoreOut.dataset.weights) : null;
  const WARN_BELOW = Number(box.dataset.warnBelow || 0);

  // A draft of this item's spans (and score) until it is submitted; keyed by the slot, which
  // is this annotator's item.
  const slotInput = form.querySelector('input[name="slot"]');
  const draft = slotInput ? SpanEditor.drafts("evalsite:spans:", slotInput.value) : null;
  const stored = draft && draft.read();
  const restored = stored && stored.length === box.textContent.length && Array.isArray(stored.spans) ? stored : null;

  let editor = null;
  const keep = () => {
    if (draft) draft.write({ length: editor.text.length, score: scoreBox ? scoreBox.value : "", spans: editor.spans() });
  };
  const save = () => {
    const spans = editor.spans();
    field.value = JSON.stringify(spans);
    if (warning) warning.hidden = true;
    if (scoreOut && weights) scoreOut.textContent = String(SpanEditor.mqmScore(weights, spans));
    keep();
  };
  editor = SpanEditor.create(box, {
    prefilled: JSON.parse(document.getElementById("prefilled-spans").textContent || "[]"),
    saved: restored ? restored.spans : null,
    picker,
    nonTranslation: picker ? picker.dataset.nonTranslation : "",
    missingList: document.getElementById("missing-spans"),
    keys: { Enter: scoreBox ? () => scoreBox.focus() : undefined },  // ESA: the score comes next
    onChange: save,
  });
  if (restored && scoreBox && restored.score !== "" && scoreBox.value === "") {
    scoreBox.value = restored.score;
    scoreBox.dispatchEvent(new Event("input", { bubbles: true }));  // the slider follows
  }
  save();
  document.querySelectorAll("[data-missing]").forEach((button) => {
    button.addEventListener("click", () => editor.markMissing(button.dataset.missing));
  });

  // A gentle warning, once: a low score without any marked error is often a slip.
  let warned = false;
  form.addEventListener("submit", (event) => {
    if (!warning || !scoreBox || warned || editor.spans().length) return;
    if (scoreBox.value === "" || Number(scoreBox.value) >= WARN_BELOW) return;
    warned = true;
    warning.hidden = false;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);

  // The draft goes once the answer is sent (the warning above stops a submit before this).
  if (scoreBox) scoreBox.addEventListener("input", keep);
  form.addEventListener("submit", () => { if (draft) draft.remove(); });

  editor.focus();
})();
