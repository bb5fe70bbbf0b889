// Error-span editor (ESA, ESA with pre-filled spans, MQM): mouse and keyboard alone.
// Offsets are character offsets into the translation as shown, end exclusive; the spans
// travel to the server as JSON in the hidden "spans" field, which checks them again.
"use strict";

(function () {
  const editor = document.getElementById("span-editor");
  if (!editor) return;
  const form = document.getElementById("judgment");
  const field = form.querySelector('input[name="spans"]');
  const text = editor.textContent;
  const isMqm = form.dataset.taskType === "mqm";
  const picker = document.getElementById("mqm-category");
  const missingList = document.getElementById("missing-spans");
  const warning = document.getElementById("esa-warning");
  const scoreBox = form.querySelector('input[name="score"]');
  const nonTranslation = picker ? picker.dataset.nonTranslation : "";
  const SEVERITIES = ["minor", "major"];
  const scoreOut = document.getElementById("mqm-score");

  // MQM: the score as metrics/spans/mqm.py (MqmWeights.weight) computes it, with the weights
  // the server sends; the server computes it again from the stored spans.
  const weights = scoreOut && scoreOut.dataset.weights ? JSON.parse(scoreOut.dataset.weights) : null;
  const weightOf = (severity, category) => {
    const sev = String(severity).toLowerCase();
    const cat = String(category || "").toLowerCase();
    if (weights.non_translation_categories.includes(cat)) return weights.non_translation;
    const exception = weights.exceptions.find(
      (e) => e.severity.toLowerCase() === sev && e.category.toLowerCase() === cat);
    if (exception) return exception.weight;
    return weights.severity[sev] || 0;
  };
  const showScore = () => {
    if (!scoreOut || !weights) return;
    const total = spans.reduce((sum, s) => sum + weightOf(s.severity, s.category), 0);
    scoreOut.textContent = String(Number(total.toFixed(4)));  // 0.1 + 0.2 shows as 0.3
  };
  const WARN_BELOW = Number(editor.dataset.warnBelow || 0);

  // Words: the keyboard cursor moves and selections extend by whole words.
  const words = [];
  for (const match of text.matchAll(/\S+/gu)) words.push([match.index, match.index + match[0].length]);
  let cursor = 0;
  let anchor = null;  // word index where a Shift+arrow selection started
  let pending = null;  // the span waiting for its MQM category
  let pressedAt = [0, 0];  // where the mouse went down: a click that moved was a selection

  const prefilled = JSON.parse(document.getElementById("prefilled-spans").textContent || "[]");
  let spans = prefilled.map((span, index) => ({ ...span, prefilled: index }));

  // A draft of this item's spans (and score) in the browser until it is submitted, so that a
  // reload or a crash loses nothing; keyed by the slot, which is this annotator's item.
  const slotInput = form.querySelector('input[name="slot"]');
  const DRAFTS = "evalsite:spans:";
  const draftKey = slotInput ? DRAFTS + slotInput.value : null;
  const DRAFT_DAYS = 14;
  const storage = (() => {
    try { return window.localStorage; } catch (error) { return null; }  // disabled storage
  })();
  const validSpan = (s) => s && SEVERITIES.includes(s.severity) &&
    (s.category === null || typeof s.category === "string") &&
    ((s.start === null && s.end === null) ||
     (Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start < s.end && s.end <= text.length)) &&
    (s.prefilled === undefined || (Number.isInteger(s.prefilled) && s.prefilled < prefilled.length));
  const draftRead = () => {
    if (!storage || !draftKey) return null;
    try {
      const draft = JSON.parse(storage.getItem(draftKey));
      if (!draft || draft.length !== text.length || !Array.isArray(draft.spans)) return null;
      return draft.spans.every(validSpan) ? draft : null;
    } catch (error) {
      return null;
    }
  };
  const draftWrite = () => {
    if (!storage || !draftKey) return;
    const draft = {
      savedAt: Date.now(),
      length: text.length,
      score: scoreBox ? scoreBox.value : "",
      spans: spans.map((s) => ({ start: s.start, end: s.end, severity: s.severity, category: s.category || null, prefilled: s.prefilled })),
    };
    try { storage.setItem(draftKey, JSON.stringify(draft)); } catch (error) { /* storage full */ }
  };
  const draftsTidy = () => {  // drafts of items never submitted (skipped, reassigned) expire
    if (!storage) return;
    const oldest = Date.now() - DRAFT_DAYS * 86400000;
    Object.keys(storage).filter((key) => key.startsWith(DRAFTS) && key !== draftKey).forEach((key) => {
      try {
        const draft = JSON.parse(storage.getItem(key));
        if (!draft || !(draft.savedAt > oldest)) storage.removeItem(key);
      } catch (error) {
        storage.removeItem(key);
      }
    });
  };
  draftsTidy();
  const restored = draftRead();
  if (restored) {
    spans = restored.spans.map((s) => ({ ...s }));
    if (scoreBox && restored.score !== "" && scoreBox.value === "") {
      scoreBox.value = restored.score;
      scoreBox.dispatchEvent(new Event("input", { bubbles: true }));  // the slider follows
    }
  }

  const selection = () => {
    if (!words.length) return null;
    const from = anchor === null ? cursor : Math.min(anchor, cursor);
    const to = anchor === null ? cursor : Math.max(anchor, cursor);
    return [words[from][0], words[to][1]];
  };
  const spanAt = (offset) => spans.find((s) => s.start !== null && s.start <= offset && offset < s.end);

  const save = () => {
    field.value = JSON.stringify(spans.map((s) => {
      const out = { start: s.start, end: s.end, severity: s.severity, category: s.category || null };
      if (s.prefilled !== undefined && s.prefilled !== false) out.prefilled = s.prefilled;
      return out;
    }));
    if (warning) warning.hidden = true;
    showScore();
    draftWrite();
  };

  // Draws the text in pieces cut at every word, span and selection boundary (DOM nodes only:
  // the text is never parsed as HTML).
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
        if (marked.prefilled !== undefined) piece.classList.add("err-prefilled");
        piece.title = `${marked.severity}${marked.category ? ` · ${marked.category}` : ""}`;
      }
      if (chosen && a >= chosen[0] && b <= chosen[1]) piece.classList.add("cursor");
      editor.append(piece);
    }
    if (missingList) {
      missingList.replaceChildren();
      spans.filter((s) => s.start === null).forEach((s) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = `err err-${s.severity}`;
        button.textContent = `Missing content · ${s.severity}${s.category ? ` · ${s.category}` : ""} ×`;
        button.addEventListener("click", () => { spans = spans.filter((x) => x !== s); save(); render(); });
        item.append(button);
        missingList.append(item);
      });
    }
    save();
  };

  const askCategory = (span) => {
    if (!isMqm || !picker) return;
    pending = span;
    picker.hidden = false;
    picker.value = span.category || picker.options[0].value;
    picker.focus();
  };
  const setCategory = () => {
    if (!pending) return;
    pending.category = picker.value;
    if (pending.category === nonTranslation) {
      // Non-translation is always major and covers the whole segment.
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
    if (same) {
      same.severity = severity;
      render();
      return;
    }
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
    } else if (key === "Enter" && scoreBox) {
      scoreBox.focus();  // ESA: the score comes after the spans
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
  editor.addEventListener("focus", render);

  // Mouse: select text to mark a span (minor; a click then changes it), click a span to
  // cycle its severity: minor → major → removed.
  const offsetOf = (node, offset) => {
    const piece = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    if (!piece || !piece.dataset || piece.dataset.start === undefined) return null;
    return Number(piece.dataset.start) + (node.nodeType === Node.TEXT_NODE ? offset : 0);
  };
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
    const piece = event.target.closest("[data-start]");
    if (Math.abs(event.clientX - pressedAt[0]) + Math.abs(event.clientY - pressedAt[1]) > 3) return;
    if (!piece) return;
    const under = spanAt(Number(piece.dataset.start));
    if (!under) return;
    const next = SEVERITIES.indexOf(under.severity) + 1;
    if (next >= SEVERITIES.length) spans = spans.filter((s) => s !== under);
    else under.severity = SEVERITIES[next];
    render();
  });

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
  document.querySelectorAll("[data-missing]").forEach((button) => {
    button.addEventListener("click", () => markMissing(button.dataset.missing));
  });

  // A gentle warning, once: a low score without any marked error is often a slip.
  let warned = false;
  form.addEventListener("submit", (event) => {
    if (!warning || !scoreBox || warned || spans.length) return;
    if (scoreBox.value === "" || Number(scoreBox.value) >= WARN_BELOW) return;
    warned = true;
    warning.hidden = false;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);

  // The draft goes once the answer is sent (the warning above stops a submit before this).
  if (scoreBox) scoreBox.addEventListener("input", draftWrite);
  form.addEventListener("submit", () => {
    if (storage && draftKey) storage.removeItem(draftKey);
  });

  render();
  editor.focus();
})();
