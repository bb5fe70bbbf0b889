// Contrastive screens (cESA, contrastive MQM, contrastive DA): several translations side by
// side, each with its own error spans (span_editor.js; here also [ and ] move between
// translations) and score. Each candidate's spans travel as JSON in its hidden "spans-i"
// field, which the server checks again. Each slider shows the scores given to the other
// translations. evalsite.js posts the form (one submit per screen) and keeps a score box and
// its slider in step.
"use strict";

(function () {
  const form = document.getElementById("judgment");
  const screen = form && form.querySelector(".contrastive");
  if (!screen) return;
  const cards = Array.from(screen.querySelectorAll("section.contrast"));
  const weightsHolder = form.querySelector(".mqm-weights");
  const weights = weightsHolder && weightsHolder.dataset.weights ? JSON.parse(weightsHolder.dataset.weights) : null;
  const nonTranslation = weightsHolder ? weightsHolder.dataset.nonTranslation : "";

  const focusCard = (index) => {
    const card = cards[Math.max(0, Math.min(index, cards.length - 1))];
    const target = card.querySelector(".contrast-editor") || card.querySelector("input.score-box");
    if (target) {
      target.focus();
      target.scrollIntoView({ block: "nearest" });
    }
  };
  const submit = () => {
    if (form.reportValidity()) form.requestSubmit();
  };
  // Enter after a candidate's last control: the next candidate, or the submit after the last.
  const onward = (index) => {
    if (index + 1 < cards.length) focusCard(index + 1);
    else submit();
  };

  // The other translations' scores on each slider (marks) and under it (words).
  const boxes = cards.map((card) => card.querySelector("input.score-box"));
  const showOthers = () => {
    cards.forEach((card, index) => {
      const marks = card.querySelector(".other-marks");
      const words = card.querySelector("p.others");
      if (!marks || !words) return;
      marks.replaceChildren();
      const said = [];
      cards.forEach((other, j) => {
        if (j === index || !boxes[j]) return;
        const value = boxes[j].value;
        said.push(`${other.dataset.label} ${value === "" ? "–" : value}`);
        if (value === "") return;
        const mark = document.createElement("span");
        mark.className = "other-mark";
        mark.textContent = other.dataset.label;
        mark.style.left = `${Math.max(0, Math.min(100, Number(value)))}%`;  // CSSOM, not an inline style
        marks.append(mark);
      });
      words.textContent = said.length ? `Others: ${said.join(" · ")}` : "";
    });
  };
  boxes.forEach((box, index) => {
    if (!box) return;
    box.addEventListener("input", showOthers);
    const range = cards[index].querySelector("input[type=range]");
    if (range) range.addEventListener("input", showOthers);
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      event.stopPropagation();  // evalsite.js would submit from any score box
      onward(index);
    });
  });
  showOthers();

  // A draft of the screen (every translation's spans and score) until it is submitted;
  // keyed by the slot (this annotator's screen).
  const slotInput = form.querySelector('input[name="slot"]');
  const draft = slotInput ? SpanEditor.drafts("evalsite:contrastive:", slotInput.value) : null;
  const stored = draft && draft.read();
  const restored = stored && Array.isArray(stored.spans) && stored.spans.length === cards.length &&
    Array.isArray(stored.lengths) && Array.isArray(stored.scores) ? stored : null;
  const editors = [];  // per translation: its span editor, if it has one
  let ready = false;  // no draft is written before every editor has read the stored one
  const draftWrite = () => {
    if (!draft || !ready) return;
    draft.write({
      lengths: cards.map((card) => (card.querySelector(".contrast-editor") || card).textContent.length),
      scores: boxes.map((box) => (box ? box.value : "")),
      spans: editors.map((editor) => (editor ? editor.spans() : [])),
    });
  };
  boxes.forEach((box) => { if (box) box.addEventListener("input", draftWrite); });
  form.addEventListener("submit", () => { if (draft) draft.remove(); });

  // One span editor per translation; its spans go in its hidden "spans-i" field.
  cards.forEach((card, index) => {
    const box = card.querySelector(".contrast-editor");
    if (!box) return;
    const field = card.querySelector('input[type=hidden][name^="spans-"]');
    const scoreOut = card.querySelector("output.contrast-mqm");
    const save = (editor) => {
      const spans = editor.spans();
      field.value = JSON.stringify(spans);
      if (scoreOut && weights) scoreOut.textContent = String(SpanEditor.mqmScore(weights, spans));
      draftWrite();
    };
    const scoreBox = boxes[index];
    editors[index] = SpanEditor.create(box, {
      saved: restored && restored.lengths[index] === box.textContent.length ? restored.spans[index] : null,
      picker: card.querySelector("select.contrast-category"),
      nonTranslation,
      missingList: card.querySelector("ul.missing-spans"),
      keys: {
        "]": () => focusCard(index + 1),
        "[": () => focusCard(index - 1),
        Enter: () => {
          if (scoreBox) scoreBox.focus();  // ESA: this translation's score comes next
          else onward(index);
        },
      },
      onChange: save,
    });
    save(editors[index]);
  });
  ready = true;
  if (restored) {
    boxes.forEach((box, index) => {
      const score = restored.scores[index];
      if (box && score !== "" && score !== undefined && box.value === "") {
        box.value = score;
        box.dispatchEvent(new Event("input", { bubbles: true }));  // slider, marks
      }
    });
  }
  focusCard(0);
})();
