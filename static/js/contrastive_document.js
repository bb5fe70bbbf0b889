// The contrastive document page (cESA, contrastive MQM, contrastive DA with the document
// unit): every segment's translations side by side, each marked (span_editor.js, the one
// span editor) and scored, keyboard first, the page submitted at once with a page score per
// translation when the task asks. Each slider shows the segment's other translations'
// scores. A draft stays in the browser until the page is recorded, so a reload resumes it;
// the server checks everything again.
"use strict";

(function () {
  const form = document.getElementById("contrastive-page");
  if (!form || !window.SpanEditor) return;
  const IDLE_CAP = Number(form.dataset.idleCap);  // ms; the server defines it once
  const hasSpans = form.dataset.spans === "1";
  const scored = form.dataset.scored === "1";
  const submitButton = form.querySelector("button[type=submit]");
  const pageSlot = form.querySelector('input[name="page"]').value;
  const picker = document.getElementById("mqm-category");
  const pickerLabel = form.querySelector(".doc-picker");
  const weights = picker && picker.dataset.weights ? JSON.parse(picker.dataset.weights) : null;
  const pageScores = Array.from(form.querySelectorAll(".cdoc-page-score input.score-box"));
  const drafts = SpanEditor.drafts("evalsite:cpage:", pageSlot);
  let saving = false;  // no draft is written before the stored one is read back

  DocumentPage.linkSliders(form);

  // The other scores of a group of boxes on each one's slider (marks) and under it (words).
  const showOthers = (cards) => {
    cards.forEach((card, index) => {
      const marks = card.box && card.node.querySelector(".other-marks");
      if (!marks) return;
      marks.replaceChildren();
      const said = [];
      cards.forEach((other, j) => {
        if (j === index || !other.box) return;
        const value = other.box.value;
        said.push(`${other.label} ${value === "" ? "–" : value}`);
        if (value === "") return;
        const mark = document.createElement("span");
        mark.className = "other-mark";
        mark.textContent = other.label;
        mark.style.left = `${Math.max(0, Math.min(100, Number(value)))}%`;  // CSSOM, not an inline style
        marks.append(mark);
      });
      const words = card.node.querySelector("p.others");
      if (words) words.textContent = said.length ? `Others: ${said.join(" · ")}` : "";
    });
  };

  const draftWrite = () => {
    if (!saving) return;
    drafts.write({
      pageScores: pageScores.map((box) => box.value),
      segments: segments.map((segment) => ({
        slot: segment.slot,
        ms: Math.round(segment.ms),
        candidates: segment.cards.map((card) => ({
          length: card.text.length,
          score: card.box ? card.box.value : "",
          spans: card.editor ? card.editor.spans() : [],
        })),
      })),
    });
  };
  const stored = drafts.read();
  const savedSegment = (slot) => {
    const list = stored && Array.isArray(stored.segments) ? stored.segments : [];
    return list.find((entry) => entry && entry.slot === slot) || null;
  };

  // The picker (MQM) is one for the page: it moves into the translation that asks.
  const showPicker = (card) => (on) => {
    if (on) card.node.append(pickerLabel);
    pickerLabel.hidden = !on;
  };

  const segments = Array.from(form.querySelectorAll(".cdoc-segment")).map((row) => {
    const segment = { row, slot: Number(row.dataset.slot), number: Number(row.dataset.number), ms: 0 };
    const saved = savedSegment(segment.slot);
    if (saved && Number.isFinite(saved.ms) && saved.ms >= 0) segment.ms = saved.ms;
    segment.cards = Array.from(row.querySelectorAll(".cdoc-candidate")).map((node, index) => {
      const box = node.querySelector("input.score-box");
      const editorBox = node.querySelector(".cdoc-editor");
      const card = { node, index, label: node.dataset.label, box, text: (editorBox || node).textContent, editor: null };
      const mine = saved && Array.isArray(saved.candidates) ? saved.candidates[index] : null;
      const fits = mine && mine.length === card.text.length;
      if (editorBox) {
        card.editor = SpanEditor.create(editorBox, {
          saved: fits ? mine.spans : null,
          picker,
          showPicker: picker ? showPicker(card) : undefined,
          nonTranslation: picker ? picker.dataset.nonTranslation : "",
          missingList: node.querySelector(".missing-spans"),
          keys: {
            Enter: () => onward(segment, card, "editor"),
            "]": () => focusCard(segment, index + 1),
            "[": () => focusCard(segment, index - 1),
            ArrowDown: () => focusSegment(segments.indexOf(segment) + 1, index),
            ArrowUp: () => focusSegment(segments.indexOf(segment) - 1, index),
          },
          onChange: () => { mqmShow(card); refresh(segment); },
        });
      }
      if (box && fits && mine.score !== "" && mine.score !== undefined) {
        box.value = mine.score;
        box.dispatchEvent(new Event("input", { bubbles: true }));
      }
      return card;
    });
    return segment;
  });
  if (stored && Array.isArray(stored.pageScores)) {
    pageScores.forEach((box, index) => {
      const value = stored.pageScores[index];
      if (value === "" || value === undefined || value === null) return;
      box.value = value;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  const mqmShow = (card) => {
    const out = card.node.querySelector("output.cdoc-mqm");
    if (out && weights && card.editor) out.textContent = SpanEditor.mqmScore(weights, card.editor.spans());
  };
  const answered = (card) => !card.box || card.box.value !== "";
  const refresh = (segment) => {
    showOthers(segment.cards);
    segment.cards.forEach((card) => card.node.classList.toggle("answered", answered(card)));
    segment.row.classList.toggle("answered", segment.cards.every(answered));
    draftWrite();
  };
  const pageCards = pageScores.map((box) => ({ node: box.closest(".cdoc-page-score"), box, label: box.closest(".cdoc-page-score").dataset.label }));

  // --- Moving: a card's first control is its editor, else its score box.
  const firstControl = (card) => (card.editor ? card.editor.box : card.box);
  const focusCard = (segment, index) => {
    const card = segment.cards[Math.max(0, Math.min(index, segment.cards.length - 1))];
    const target = firstControl(card);
    if (target) {
      target.focus();
      target.scrollIntoView({ block: "nearest" });
    }
  };
  const focusSegment = (index, cardIndex = 0) => {
    if (index < 0 || index >= segments.length) return;
    focusCard(segments[index], cardIndex);
  };
  const afterPage = () => (pageScores.length ? pageScores[0].focus() : submitButton.focus());
  // Enter goes on: editor → its score → the next translation → the next segment → the page.
  const onward = (segment, card, from) => {
    if (from === "editor" && card.box) {
      card.box.focus();
      return;
    }
    if (card.index + 1 < segment.cards.length) {
      focusCard(segment, card.index + 1);
      return;
    }
    const next = segments.indexOf(segment) + 1;
    if (next < segments.length) focusSegment(next);
    else afterPage();
  };
  segments.forEach((segment) => {
    segment.cards.forEach((card) => {
      mqmShow(card);
      if (!card.box) return;
      card.box.addEventListener("input", () => refresh(segment));
      card.box.addEventListener("keydown", (event) => {
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        if (event.key === "Enter") {
          event.preventDefault();
          onward(segment, card, "score");
        } else if (event.key === "Escape" && card.editor) {
          event.preventDefault();
          card.editor.focus();
        }
      });
    });
  });
  pageScores.forEach((box, index) => {
    box.addEventListener("input", () => { showOthers(pageCards); draftWrite(); });
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      if (index + 1 < pageScores.length) pageScores[index + 1].focus();
      else submitButton.focus();
    });
  });

  // --- Time per segment (the page's segments, all its translations together).
  const tick = DocumentPage.timeSegments(form, segments, IDLE_CAP);

  // --- Submit: every translation scored (and the page's), then one request.
  DocumentPage.submitOnce({
    form,
    draft: drafts,
    problem: () => {
      for (const segment of segments) {
        const card = segment.cards.find((c) => !answered(c));
        if (card) return { message: `Segment ${segment.number}, translation ${card.label} has no score yet.`, focus: card.box };
      }
      const unscored = pageScores.findIndex((box) => box.value === "");
      if (unscored >= 0) {
        return { message: `Translation ${pageCards[unscored].label} needs its score for the whole page.`, focus: pageScores[unscored] };
      }
      return null;
    },
    fill: () => {
      tick(null);
      draftWrite();
      const answers = segments.map((segment) => ({
        slot: segment.slot,
        ms: Math.round(segment.ms),
        candidates: segment.cards.map((card) => {
          const answer = {};
          if (scored) answer.score = card.box.value;
          if (hasSpans) answer.spans = card.editor.spans();
          return answer;
        }),
      }));
      form.querySelector('input[name="answers"]').value = JSON.stringify(answers);
      form.querySelector('input[name="document_scores"]').value =
        pageScores.length ? JSON.stringify(pageScores.map((box) => Number(box.value))) : "";
    },
  });

  saving = true;
  segments.forEach(refresh);
  showOthers(pageCards);
  focusSegment(0);
})();
