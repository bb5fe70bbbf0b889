// The document page: every segment of the page marked (error spans: ESA, ESA^AI, MQM) and
// scored, keyboard first, submitted at once. Offsets are character offsets into each
// translation as shown, end exclusive; the server checks everything again. A draft of the
// page stays in the browser until it is recorded, so a reload resumes mid-page.
"use strict";

(function () {
  const form = document.getElementById("document-page");
  if (!form) return;
  const IDLE_CAP = Number(form.dataset.idleCap);  // ms; the server defines it once
  const hasSpans = form.dataset.spans === "1";
  const scored = form.dataset.scored === "1";
  const isMqm = form.dataset.taskType === "mqm";
  const SEVERITIES = ["minor", "major"];
  const status = document.getElementById("submit-status");
  const pageScore = form.querySelector('input[name="document_score"]');
  const pickerLabel = form.querySelector(".doc-picker");
  const picker = document.getElementById("mqm-category");
  const submitButton = form.querySelector("button[type=submit]");
  const pageSlot = form.querySelector('input[name="page"]').value;

  // Each number box drives its slider (the slider is the mouse's way, the box the keys').
  const linkSlider = (row) => {
    const range = row.querySelector("input[type=range]");
    const box = row.querySelector("input.score-box");
    if (!range || !box) return;
    range.addEventListener("input", () => { box.value = range.value; box.dispatchEvent(new Event("input", { bubbles: true })); });
    box.addEventListener("input", () => {
      if (box.value === "") { range.classList.add("unset"); return; }
      range.value = box.value;
      range.classList.remove("unset");
    });
  };
  form.querySelectorAll(".slider-row").forEach(linkSlider);

  const segments = Array.from(form.querySelectorAll(".doc-segment")).map((row) => {
    const editor = row.querySelector(".doc-editor");
    const data = row.querySelector('script[type="application/json"]');
    const segment = {
      row,
      slot: Number(row.dataset.slot),
      number: Number(row.dataset.number),
      editor,
      missing: row.querySelector(".missing-spans"),
      scoreBox: row.querySelector("input.score-box"),
      text: editor ? editor.textContent : "",
      prefilled: data ? JSON.parse(data.textContent || "[]") : [],
      spans: [],
      words: [],
      cursor: 0,
      anchor: null,
      ms: 0,
    };
    segment.spans = segment.prefilled.map((span, index) => ({ ...span, prefilled: index }));
    for (const match of segment.text.matchAll(/\S+/gu)) segment.words.push([match.index, match.index + match[0].length]);
    return segment;
  });

  // --- The draft: spans, scores and times of every segment, keyed by the page's first slot.
  const DRAFTS = "evalsite:page:";
  const draftKey = DRAFTS + pageSlot;
  const DRAFT_DAYS = 14;
  const storage = (() => {
    try { return window.localStorage; } catch (error) { return null; }
  })();
  const validSpan = (segment, s) => s && SEVERITIES.includes(s.severity) &&
    (s.category === null || typeof s.category === "string") &&
    ((s.start === null && s.end === null) ||
     (Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start < s.end && s.end <= segment.text.length)) &&
    (s.prefilled === undefined || (Number.isInteger(s.prefilled) && s.prefilled < segment.prefilled.length));
  const draftWrite = () => {
    if (!storage) return;
    const draft = {
      savedAt: Date.now(),
      pageScore: pageScore ? pageScore.value : "",
      segments: segments.map((s) => ({
        slot: s.slot,
        length: s.text.length,
        score: s.scoreBox ? s.scoreBox.value : "",
        ms: Math.round(s.ms),
        spans: s.spans.map((x) => ({ start: x.start, end: x.end, severity: x.severity, category: x.category || null, prefilled: x.prefilled })),
      })),
    };
    try { storage.setItem(draftKey, JSON.stringify(draft)); } catch (error) { /* storage full */ }
  };
  const setBox = (box, value) => {
    if (!box || value === "" || value === undefined || box.value !== "") return;
    box.value = value;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const draftRestore = () => {
    if (!storage) return;
    Object.keys(storage).filter((key) => key.startsWith(DRAFTS) && key !== draftKey).forEach((key) => {
      try {
        const old = JSON.parse(storage.getItem(key));
        if (!old || !(old.savedAt > Date.now() - DRAFT_DAYS * 86400000)) storage.removeItem(key);
      } catch (error) { storage.removeItem(key); }
    });
    let draft;
    try { draft = JSON.parse(storage.getItem(draftKey)); } catch (error) { return; }
    if (!draft || !Array.isArray(draft.segments)) return;
    draft.segments.forEach((saved) => {
      const segment = segments.find((s) => s.slot === saved.slot);
      if (!segment || saved.length !== segment.text.length) return;
      if (Array.isArray(saved.spans) && saved.spans.every((x) => validSpan(segment, x))) {
        segment.spans = saved.spans.map((x) => ({ ...x }));
      }
      if (Number.isFinite(saved.ms) && saved.ms >= 0) segment.ms = saved.ms;
      setBox(segment.scoreBox, saved.score);
    });
    setBox(pageScore, draft.pageScore);
  };

  // --- Time per segment: the time between two actions (key, click, focus) counts for the
  // segment they were in, an idle gap at most IDLE_CAP.
  let current = null;
  let last = performance.now();
  const tick = (next) => {
    const now = performance.now();
    if (current) current.ms += Math.min(now - last, IDLE_CAP);
    last = now;
    current = next;
  };
  const segmentOf = (node) => segments.find((s) => s.row.contains(node)) || null;
  ["keydown", "pointerdown", "focusin"].forEach((type) => {
    form.addEventListener(type, (event) => {
      const segment = segmentOf(event.target);
      tick(segment);
      segments.forEach((s) => s.row.classList.toggle("active", s === segment));
    }, true);
  });

  // --- The span editor of one segment (as static/js/spans.js does for one item).
  const spanAt = (segment, offset) => segment.spans.find((s) => s.start !== null && s.start <= offset && offset < s.end);
  const selection = (segment) => {
    if (!segment.words.length) return null;
    const from = segment.anchor === null ? segment.cursor : Math.min(segment.anchor, segment.cursor);
    const to = segment.anchor === null ? segment.cursor : Math.max(segment.anchor, segment.cursor);
    return [segment.words[from][0], segment.words[to][1]];
  };
  const answered = (segment) => !scored || (segment.scoreBox && segment.scoreBox.value !== "");
  const render = (segment) => {
    segment.row.classList.toggle("answered", answered(segment));
    if (!segment.editor) return;
    const { text } = segment;
    const cuts = new Set([0, text.length]);
    segment.words.forEach(([a, b]) => { cuts.add(a); cuts.add(b); });
    segment.spans.forEach((s) => { if (s.start !== null) { cuts.add(s.start); cuts.add(s.end); } });
    const sorted = Array.from(cuts).sort((a, b) => a - b);
    const chosen = document.activeElement === segment.editor ? selection(segment) : null;
    segment.editor.replaceChildren();
    for (let i = 0; i + 1 < sorted.length; i += 1) {
      const [a, b] = [sorted[i], sorted[i + 1]];
      const piece = document.createElement("span");
      piece.textContent = text.slice(a, b);
      piece.dataset.start = a;
      const marked = spanAt(segment, a);
      if (marked) {
        piece.classList.add("err", `err-${marked.severity}`);
        if (marked.prefilled !== undefined) piece.classList.add("err-prefilled");
        piece.title = `${marked.severity}${marked.category ? ` · ${marked.category}` : ""}`;
      }
      if (chosen && a >= chosen[0] && b <= chosen[1]) piece.classList.add("cursor");
      segment.editor.append(piece);
    }
    segment.missing.replaceChildren();
    segment.spans.filter((s) => s.start === null).forEach((s) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = `err err-${s.severity}`;
      button.textContent = `Missing content · ${s.severity}${s.category ? ` · ${s.category}` : ""} ×`;
      button.addEventListener("click", () => { segment.spans = segment.spans.filter((x) => x !== s); changed(segment); });
      item.append(button);
      segment.missing.append(item);
    });
  };
  const changed = (segment) => { render(segment); draftWrite(); };

  let pending = null;  // MQM: [segment, span] waiting for its category
  const askCategory = (segment, span) => {
    if (!isMqm || !picker) return;
    pending = [segment, span];
    segment.row.querySelector(".doc-target").append(pickerLabel);
    pickerLabel.hidden = false;
    picker.value = span.category || picker.options[0].value;
    picker.focus();
  };
  const closePicker = (keep) => {
    if (!pending) return;
    const [segment, span] = pending;
    if (keep) span.category = picker.value;
    else segment.spans = segment.spans.filter((s) => s !== span);
    if (keep && span.category === picker.dataset.nonTranslation) {
      // Non-translation is always major and covers the whole segment.
      segment.spans = segment.spans.filter((s) => s === span || s.start === null);
      Object.assign(span, { start: 0, end: segment.text.length, severity: "major" });
    }
    pending = null;
    pickerLabel.hidden = true;
    segment.editor.focus();
    changed(segment);
  };
  if (picker) {
    picker.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      closePicker(event.key === "Enter");
    });
    picker.addEventListener("click", () => closePicker(true));
  }

  const mark = (segment, range, severity) => {
    if (!range || range[0] >= range[1]) return;
    const same = segment.spans.find((s) => s.start === range[0] && s.end === range[1]);
    if (same) { same.severity = severity; changed(segment); return; }
    segment.spans = segment.spans.filter((s) => s.start === null || s.end <= range[0] || s.start >= range[1]);
    const span = { start: range[0], end: range[1], severity, category: null };
    segment.spans.push(span);
    segment.anchor = null;
    changed(segment);
    askCategory(segment, span);
  };

  // --- Moving between segments and submitting.
  const focusSegment = (index) => {
    const segment = segments[Math.max(0, Math.min(segments.length - 1, index))];
    (segment.editor || segment.scoreBox).focus();
  };
  const after = (segment) => {  // where Enter goes after a segment's score
    const index = segments.indexOf(segment);
    if (index + 1 < segments.length) focusSegment(index + 1);
    else if (pageScore) pageScore.focus();
    else submitButton.focus();
  };

  segments.forEach((segment, index) => {
    const { editor, scoreBox } = segment;
    if (editor) {
      editor.addEventListener("keydown", (event) => {
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        const key = event.key;
        let handled = true;
        if (key === "ArrowRight" || key === "ArrowLeft") {
          if (event.shiftKey && segment.anchor === null) segment.anchor = segment.cursor;
          if (!event.shiftKey) segment.anchor = null;
          const step = key === "ArrowRight" ? 1 : -1;
          segment.cursor = Math.max(0, Math.min(segment.words.length - 1, segment.cursor + step));
          render(segment);
        } else if (key === "ArrowDown" || key === "ArrowUp") {
          focusSegment(index + (key === "ArrowDown" ? 1 : -1));
        } else if (key === "1" || key === "2") {
          mark(segment, selection(segment), SEVERITIES[Number(key) - 1]);
        } else if (key === "Delete" || key === "Backspace") {
          const range = selection(segment);
          const under = range && spanAt(segment, range[0]);
          if (under) { segment.spans = segment.spans.filter((s) => s !== under); changed(segment); }
        } else if (key === "m" || key === "M") {
          const span = { start: null, end: null, severity: key === "M" ? "major" : "minor", category: null };
          segment.spans.push(span);
          changed(segment);
          askCategory(segment, span);
        } else if (key === "Escape") {
          segment.anchor = null;
          render(segment);
        } else if (key === "Enter") {
          if (scoreBox) scoreBox.focus();
          else after(segment);
        } else {
          handled = false;
        }
        if (handled) { event.preventDefault(); event.stopPropagation(); }
      });
      editor.addEventListener("focus", () => render(segment));
      editor.addEventListener("blur", () => render(segment));
      // Mouse: select text to mark it minor; click an error to make it major, again to remove.
      editor.addEventListener("mouseup", () => {
        const chosen = window.getSelection();
        if (!chosen || chosen.isCollapsed) return;
        const offsetOf = (node, offset) => {
          const piece = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
          if (!piece || !piece.dataset || piece.dataset.start === undefined) return null;
          return Number(piece.dataset.start) + (node.nodeType === Node.TEXT_NODE ? offset : 0);
        };
        const a = offsetOf(chosen.anchorNode, chosen.anchorOffset);
        const b = offsetOf(chosen.focusNode, chosen.focusOffset);
        chosen.removeAllRanges();
        if (a !== null && b !== null) mark(segment, [Math.min(a, b), Math.max(a, b)], "minor");
      });
      editor.addEventListener("click", (event) => {
        const piece = event.target.closest("[data-start]");
        const under = piece && spanAt(segment, Number(piece.dataset.start));
        if (!under || !window.getSelection().isCollapsed) return;
        const next = SEVERITIES.indexOf(under.severity) + 1;
        if (next >= SEVERITIES.length) segment.spans = segment.spans.filter((s) => s !== under);
        else under.severity = SEVERITIES[next];
        changed(segment);
      });
    }
    if (scoreBox) {
      scoreBox.addEventListener("input", () => changed(segment));
      scoreBox.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
          event.preventDefault();
          after(segment);
        } else if (event.key === "Escape" && editor) {
          editor.focus();
        }
      });
    }
  });
  if (pageScore) {
    pageScore.addEventListener("input", draftWrite);
    pageScore.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.ctrlKey) { event.preventDefault(); submitButton.focus(); }
    });
  }

  const say = (message, kind) => {
    status.hidden = false;
    status.className = `submit-status ${kind || ""}`;
    status.textContent = message;
  };
  let sending = false;
  const submit = async () => {
    if (sending) return;
    const missing = segments.find((s) => !answered(s));
    if (missing) {
      say(`Segment ${missing.number} has no score yet.`, "error");
      missing.scoreBox.focus();
      return;
    }
    if (pageScore && pageScore.value === "") {
      say("The page needs its score as a whole.", "error");
      pageScore.focus();
      return;
    }
    tick(null);
    draftWrite();
    const answers = segments.map((s) => {
      const answer = { slot: s.slot, ms: Math.round(s.ms) };
      if (scored) answer.score = s.scoreBox.value;
      if (hasSpans) {
        answer.spans = s.spans.map((x) => {
          const out = { start: x.start, end: x.end, severity: x.severity, category: x.category || null };
          if (x.prefilled !== undefined && x.prefilled !== false) out.prefilled = x.prefilled;
          return out;
        });
      }
      return answer;
    });
    form.querySelector('input[name="answers"]').value = JSON.stringify(answers);
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
        if (storage) storage.removeItem(draftKey);
        say(body.status === "recorded" ? "Saved." : "Already saved.");
        window.location.assign(body.next);
        return;
      }
      say(body.error || "Not saved.", "error");
      if (response.status === 409 && storage) storage.removeItem(draftKey);
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

  draftRestore();
  segments.forEach(render);
  focusSegment(0);
})();
