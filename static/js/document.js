// The document page: every segment of the page marked (error spans: ESA, ESA^AI, MQM, with
// span_editor.js; here also ↓/↑ move between segments) and scored, keyboard first, submitted
// at once; the server checks everything again. A draft of the
// page stays in the browser until it is recorded, so a reload resumes mid-page.
"use strict";

(function () {
  const form = document.getElementById("document-page");
  if (!form) return;
  const IDLE_CAP = Number(form.dataset.idleCap);  // ms; the server defines it once
  const hasSpans = form.dataset.spans === "1";
  const scored = form.dataset.scored === "1";
  const isMqm = form.dataset.categories === "1";  // its spans take an MQM category
  const pageScore = form.querySelector('input[name="document_score"]');
  const pickerLabel = form.querySelector(".doc-picker");
  const picker = document.getElementById("mqm-category");
  const submitButton = form.querySelector("button[type=submit]");
  const pageSlot = form.querySelector('input[name="page"]').value;

  DocumentPage.linkSliders(form);

  // --- The draft: spans, scores and times of every segment, keyed by the page's first slot.
  const draft = SpanEditor.drafts("evalsite:page:", pageSlot);
  const stored = draft.read();
  const savedOf = (slot, length) => {
    if (!stored || !Array.isArray(stored.segments)) return null;
    return stored.segments.find((saved) => saved && saved.slot === slot && saved.length === length) || null;
  };

  const answered = (segment) => !scored || (segment.scoreBox && segment.scoreBox.value !== "");
  const refresh = (segment) => segment.row.classList.toggle("answered", answered(segment));
  let draftWrite = () => {};  // until every segment is built
  const segments = Array.from(form.querySelectorAll(".doc-segment")).map((row) => {
    const box = row.querySelector(".doc-editor");
    const segment = {
      row,
      slot: Number(row.dataset.slot),
      number: Number(row.dataset.number),
      box,
      editor: null,
      scoreBox: row.querySelector("input.score-box"),
      length: box ? box.textContent.length : 0,
      ms: 0,
    };
    segment.saved = savedOf(segment.slot, segment.length);
    return segment;
  });
  segments.forEach((segment, index) => {
    const { box, row, saved } = segment;
    if (!box) return;
    const data = row.querySelector('script[type="application/json"]');
    segment.editor = SpanEditor.create(box, {
      prefilled: data ? JSON.parse(data.textContent || "[]") : [],
      saved: saved && Array.isArray(saved.spans) ? saved.spans : null,
      picker: isMqm ? picker : null,
      showPicker: (on) => {  // one picker for the page, shown under the segment that asks
        if (on) row.querySelector(".doc-target").append(pickerLabel);
        pickerLabel.hidden = !on;
      },
      nonTranslation: picker ? picker.dataset.nonTranslation : "",
      missingList: row.querySelector(".missing-spans"),
      keys: {
        ArrowDown: () => focusSegment(index + 1),
        ArrowUp: () => focusSegment(index - 1),
        Enter: () => {
          if (segment.scoreBox) segment.scoreBox.focus();
          else after(segment);
        },
      },
      onChange: () => draftWrite(),
    });
  });
  draftWrite = () => {
    draft.write({
      pageScore: pageScore ? pageScore.value : "",
      segments: segments.map((s) => ({
        slot: s.slot,
        length: s.length,
        score: s.scoreBox ? s.scoreBox.value : "",
        ms: Math.round(s.ms),
        spans: s.editor ? s.editor.spans() : [],
      })),
    });
  };
  const setBox = (box, value) => {
    if (!box || value === "" || value === undefined || box.value !== "") return;
    box.value = value;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const draftRestore = () => {
    segments.forEach((segment) => {
      const { saved } = segment;
      if (!saved) return;
      if (Number.isFinite(saved.ms) && saved.ms >= 0) segment.ms = saved.ms;
      setBox(segment.scoreBox, saved.score);
    });
    if (stored) setBox(pageScore, stored.pageScore);
  };

  // --- Time per segment (the page's own segments).
  const tick = DocumentPage.timeSegments(form, segments, IDLE_CAP);

  // --- Moving between segments and submitting.
  const focusSegment = (index) => {
    const segment = segments[Math.max(0, Math.min(segments.length - 1, index))];
    (segment.box || segment.scoreBox).focus();
  };
  const after = (segment) => {  // where Enter goes after a segment's score
    const index = segments.indexOf(segment);
    if (index + 1 < segments.length) focusSegment(index + 1);
    else if (pageScore) pageScore.focus();
    else submitButton.focus();
  };

  segments.forEach((segment) => {
    const { editor, scoreBox } = segment;
    if (!scoreBox) return;
    scoreBox.addEventListener("input", () => { refresh(segment); draftWrite(); });
    scoreBox.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        after(segment);
      } else if (event.key === "Escape" && editor) {
        editor.focus();
      }
    });
  });
  if (pageScore) {
    pageScore.addEventListener("input", draftWrite);
    pageScore.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.ctrlKey) { event.preventDefault(); submitButton.focus(); }
    });
  }

  DocumentPage.submitOnce({
    form,
    draft,
    problem: () => {
      const missing = segments.find((s) => !answered(s));
      if (missing) return { message: `Segment ${missing.number} has no score yet.`, focus: missing.scoreBox };
      if (pageScore && pageScore.value === "") return { message: "The page needs its score as a whole.", focus: pageScore };
      return null;
    },
    fill: () => {
      tick(null);
      draftWrite();
      const answers = segments.map((s) => {
        const answer = { slot: s.slot, ms: Math.round(s.ms) };
        if (scored) answer.score = s.scoreBox.value;
        if (hasSpans) answer.spans = s.editor.spans();
        return answer;
      });
      form.querySelector('input[name="answers"]').value = JSON.stringify(answers);
    },
  });

  draftRestore();
  segments.forEach(refresh);
  focusSegment(0);
})();
