// Contrastive screens (cESA, contrastive MQM, contrastive DA): several translations side by
// side, each with its own error spans (the span editor's keys, as in spans.js) and score.
// Offsets are character offsets into each translation as shown, end exclusive; each
// candidate's spans travel as JSON in its hidden "spans-i" field, which the server checks
// again. Each slider shows the scores given to the other translations. evalsite.js posts the
// form (one submit per screen) and keeps a score box and its slider in step.
"use strict";

(function () {
  const form = document.getElementById("judgment");
  const screen = form && form.querySelector(".contrastive");
  if (!screen) return;
  const SEVERITIES = ["minor", "major"];
  const cards = Array.from(screen.querySelectorAll("section.contrast"));
  const weightsHolder = form.querySelector(".mqm-weights");
  const weights = weightsHolder && weightsHolder.dataset.weights ? JSON.parse(weightsHolder.dataset.weights) : null;
  const nonTranslation = weightsHolder ? weightsHolder.dataset.nonTranslation : "";

  // MQM: each translation's score as metrics/spans/mqm.py computes it (the server again).
  const weightOf = (severity, category) => {
    const sev = String(severity).toLowerCase();
    const cat = String(category || "").toLowerCase();
    if (weights.non_translation_categories.includes(cat)) return weights.non_translation;
    const exception = weights.exceptions.find(
      (e) => e.severity.toLowerCase() === sev && e.category.toLowerCase() === cat);
    return exception ? exception.weight : (weights.severity[sev] || 0);
  };

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

  // A draft of the screen (every translation's spans and score) in the browser until it is
  // submitted, so that a reload or a crash loses nothing; keyed by the slot (this
  // annotator's screen), kept for two weeks at most.
  const DRAFTS = "evalsite:contrastive:";
  const slotInput = form.querySelector('input[name="slot"]');
  const draftKey = slotInput ? DRAFTS + slotInput.value : null;
  const storage = (() => {
    try { return window.localStorage; } catch (error) { return null; }  // disabled storage
  })();
  const editors = [];  // per translation: {spans(), restore(list)}
  let ready = false;  // no draft is written before the stored one is read back
  const draftWrite = () => {
    if (!storage || !draftKey || !ready) return;
    const draft = {
      savedAt: Date.now(),
      lengths: cards.map((card) => (card.querySelector(".contrast-editor") || card).textContent.length),
      scores: boxes.map((box) => (box ? box.value : "")),
      spans: editors.map((editor) => (editor ? editor.spans() : [])),
    };
    try { storage.setItem(draftKey, JSON.stringify(draft)); } catch (error) { /* storage full */ }
  };
  const draftRead = () => {
    if (!storage || !draftKey) return null;
    try {
      const draft = JSON.parse(storage.getItem(draftKey));
      return draft && Array.isArray(draft.spans) && draft.spans.length === cards.length ? draft : null;
    } catch (error) {
      return null;
    }
  };
  if (storage) {
    const oldest = Date.now() - 14 * 86400000;
    Object.keys(storage).filter((key) => key.startsWith(DRAFTS) && key !== draftKey).forEach((key) => {
      try {
        const draft = JSON.parse(storage.getItem(key));
        if (!draft || !(draft.savedAt > oldest)) storage.removeItem(key);
      } catch (error) {
        storage.removeItem(key);
      }
    });
  }
  boxes.forEach((box) => { if (box) box.addEventListener("input", draftWrite); });
  form.addEventListener("submit", () => { if (storage && draftKey) storage.removeItem(draftKey); });

  // One span editor per translation.
  cards.forEach((card, index) => {
    const editor = card.querySelector(".contrast-editor");
    if (!editor) return;
    const field = card.querySelector('input[type=hidden][name^="spans-"]');
    const missingList = card.querySelector("ul.missing-spans");
    const picker = card.querySelector("select.contrast-category");
    const scoreOut = card.querySelector("output.contrast-mqm");
    const scoreBox = boxes[index];
    const text = editor.textContent;
    const words = [];
    for (const match of text.matchAll(/\S+/gu)) words.push([match.index, match.index + match[0].length]);
    let spans = [];
    let cursor = 0;
    let anchor = null;
    let pending = null;  // the span waiting for its MQM category

    const selection = () => {
      if (!words.length) return null;
      const from = anchor === null ? cursor : Math.min(anchor, cursor);
      const to = anchor === null ? cursor : Math.max(anchor, cursor);
      return [words[from][0], words[to][1]];
    };
    const spanAt = (offset) => spans.find((s) => s.start !== null && s.start <= offset && offset < s.end);
    const save = () => {
      field.value = JSON.stringify(spans.map((s) => ({
        start: s.start, end: s.end, severity: s.severity, category: s.category || null,
      })));
      if (scoreOut && weights) {
        const total = spans.reduce((sum, s) => sum + weightOf(s.severity, s.category), 0);
        scoreOut.textContent = String(Number(total.toFixed(4)));
      }
      draftWrite();
    };
    // The text in pieces cut at every word, span and selection boundary (DOM nodes only).
    const render = () => {
      const cuts = new Set([0, text.length]);
      words.forEach(([a, b]) => { cuts.add(a); cuts.add(b); });
      spans.forEach((s) => { if (s.start !== null) { cuts.add(s.start); cuts.add(s.end); } });
      const sorted = Array.from(cuts).sort((a, b) => a - b);
      const chosen = document.activeElement === editor ? selection() : null;
      editor.replaceChildren();
      for (let i = 0; i + 1 < sorted.length; i += 1) {
        const [a, b] = [sorted[i], sorted[i + 1]];
        const piece = document.createElement("span");
        piece.textContent = text.slice(a, b);
        piece.dataset.start = a;
        const marked = spanAt(a);
        if (marked) {
          piece.classList.add("err", `err-${marked.severity}`);
          piece.title = `${marked.severity}${marked.category ? ` · ${marked.category}` : ""}`;
        }
        if (chosen && a >= chosen[0] && b <= chosen[1]) piece.classList.add("cursor");
        editor.append(piece);
      }
      missingList.replaceChildren();
      spans.filter((s) => s.start === null).forEach((s) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = `err err-${s.severity}`;
        button.textContent = `Missing content · ${s.severity}${s.category ? ` · ${s.category}` : ""} ×`;
        button.addEventListener("click", () => { spans = spans.filter((x) => x !== s); render(); });
        item.append(button);
        missingList.append(item);
      });
      save();
    };
    const askCategory = (span) => {
      if (!picker) return;
      pending = span;
      picker.hidden = false;
      picker.value = span.category || picker.options[0].value;
      picker.focus();
    };
    const setCategory = () => {
      if (!pending) return;
      pending.category = picker.value;
      if (pending.category === nonTranslation) {
        spans = spans.filter((s) => s === pending || s.start === null);
        Object.assign(pending, { start: 0, end: text.length, severity: "major" });
      }
      pending = null;
      picker.hidden = true;
      editor.focus();
      render();
    };
    const mark = (range, severity) => {
      if (!range || range[0] >= range[1]) return;
      const same = spans.find((s) => s.start === range[0] && s.end === range[1]);
      if (same) { same.severity = severity; render(); return; }
      spans = spans.filter((s) => s.start === null || s.end <= range[0] || s.start >= range[1]);
      const span = { start: range[0], end: range[1], severity, category: null };
      spans.push(span);
      anchor = null;
      render();
      askCategory(span);
    };
    const markMissing = (severity) => {
      const span = { start: null, end: null, severity, category: null };
      spans.push(span);
      render();
      askCategory(span);
    };

    editor.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key;
      let handled = true;
      if (key === "ArrowRight" || key === "ArrowLeft") {
        if (event.shiftKey && anchor === null) anchor = cursor;
        if (!event.shiftKey) anchor = null;
        cursor = Math.max(0, Math.min(words.length - 1, cursor + (key === "ArrowRight" ? 1 : -1)));
        render();
      } else if (key === "1" || key === "2") {
        mark(selection(), SEVERITIES[Number(key) - 1]);
      } else if (key === "Delete" || key === "Backspace") {
        const range = selection();
        const under = range && spanAt(range[0]);
        if (under) { spans = spans.filter((s) => s !== under); render(); }
      } else if (key === "m" || key === "M") {
        markMissing(key === "M" ? "major" : "minor");
      } else if (key === "Escape") {
        anchor = null;
        render();
      } else if (key === "]" || key === "[") {
        focusCard(index + (key === "]" ? 1 : -1));
      } else if (key === "Enter") {
        if (scoreBox) scoreBox.focus();  // ESA: this translation's score comes next
        else onward(index);
      } else {
        handled = false;
      }
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
    });
    editor.addEventListener("focus", render);
    editor.addEventListener("blur", render);

    // Mouse: select text to mark it (minor); click an error: major, then removed.
    const offsetOf = (node, offset) => {
      const piece = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      if (!piece || !piece.dataset || piece.dataset.start === undefined) return null;
      return Number(piece.dataset.start) + (node.nodeType === Node.TEXT_NODE ? offset : 0);
    };
    let pressedAt = [0, 0];
    editor.addEventListener("mousedown", (event) => { pressedAt = [event.clientX, event.clientY]; });
    editor.addEventListener("mouseup", () => {
      const chosen = window.getSelection();
      if (chosen && !chosen.isCollapsed) {
        const a = offsetOf(chosen.anchorNode, chosen.anchorOffset);
        const b = offsetOf(chosen.focusNode, chosen.focusOffset);
        chosen.removeAllRanges();
        if (a !== null && b !== null) mark([Math.min(a, b), Math.max(a, b)], "minor");
      }
    });
    editor.addEventListener("click", (event) => {
      if (Math.abs(event.clientX - pressedAt[0]) + Math.abs(event.clientY - pressedAt[1]) > 3) return;
      const piece = event.target.closest("[data-start]");
      const under = piece && spanAt(Number(piece.dataset.start));
      if (!under) return;
      const next = SEVERITIES.indexOf(under.severity) + 1;
      if (next >= SEVERITIES.length) spans = spans.filter((s) => s !== under);
      else under.severity = SEVERITIES[next];
      render();
    });
    // A stored span is used only if it still fits this translation.
    const fits = (s) => s && SEVERITIES.includes(s.severity) &&
      (s.category === null || typeof s.category === "string") &&
      ((s.start === null && s.end === null) ||
       (Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start < s.end && s.end <= text.length));
    editors[index] = {
      spans: () => spans.map((s) => ({ start: s.start, end: s.end, severity: s.severity, category: s.category || null })),
      restore: (list) => { if (list.every(fits)) spans = list.map((s) => ({ ...s })); },
    };
    if (picker) {
      picker.addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); event.stopPropagation(); setCategory(); }
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          spans = spans.filter((s) => s !== pending);
          pending = null;
          picker.hidden = true;
          editor.focus();
          render();
        }
      });
      picker.addEventListener("click", setCategory);
    }
    render();
  });
  const restored = draftRead();
  ready = true;
  if (restored) {
    cards.forEach((card, index) => {
      const editor = editors[index];
      const shown = (card.querySelector(".contrast-editor") || card).textContent.length;
      if (editor && restored.lengths[index] === shown) editor.restore(restored.spans[index] || []);
      const score = restored.scores[index];
      if (boxes[index] && score !== "" && score !== undefined && boxes[index].value === "") {
        boxes[index].value = score;
        boxes[index].dispatchEvent(new Event("input", { bubbles: true }));  // slider, marks
      }
    });
    cards.forEach((card) => {
      const editor = card.querySelector(".contrast-editor");
      if (editor) editor.dispatchEvent(new Event("blur"));  // draws the restored spans
    });
  }
  focusCard(0);
})();
