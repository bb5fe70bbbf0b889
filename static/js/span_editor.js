// The error-span editor, written once for every screen that marks errors in a translation:
// the segment screen (spans.js), the contrastive screen (contrastive.js) and the document page
// (document.js). A classic script that defines window.SpanEditor and nothing else; load it
// (defer) before the screen's own script. The screen keeps its layout, drafts and submit.
//
//   const editor = SpanEditor.create(box, options)
//     box: the translation's element (class span-editor, tabindex 0); its text is the
//       translation as shown, never parsed as HTML.
//     options, all optional:
//       prefilled       spans the server proposes (ESA^AI); each keeps its index as `prefilled`.
//       saved           a draft's spans (as editor.spans() gave them): used instead of
//                       `prefilled` when every one still fits the text.
//       picker          the MQM category <select>: a new span asks for its category.
//       showPicker(on)  shows or hides the picker (default: its own `hidden`); may move it.
//       nonTranslation  the category that is always major and covers the whole text.
//       missingList     the <ul> that lists missing-content spans, each a button removing it.
//       keys            { key: (event) => … } more keys in the box (Enter, "[", ArrowDown…);
//                       a handler returning false leaves the key to the page.
//       onChange(editor) after every change of the spans (not when created: the screen
//                       reads editor.spans() itself then).
//   editor.spans()          the spans as the server reads them: {start, end, severity,
//                           category} (+ prefilled: index); missing content has null offsets.
//   editor.markMissing(sev) adds a missing-content span ("minor" or "major").
//   editor.focus(), editor.box, editor.text
//   SpanEditor.mqmScore(weights, spans)  the MQM score as metrics/spans/mqm.py computes it.
//
// Keys in the box: ←/→ move word by word, Shift+arrows select, 1 minor, 2 major, Delete
// removes the error under the cursor, m/M missing content, Esc drops the selection. Mouse:
// select text to mark it minor; click an error to make it major, again to remove it.
// Offsets are character offsets (code points, as the server counts them) into the text,
// end exclusive; the server checks them again.
"use strict";

window.SpanEditor = (function () {
  const SEVERITIES = ["minor", "major"];

  // The score as metrics/spans/mqm.py (MqmWeights.weight) computes it, with the weights the
  // server sends; rounded so that 0.1 + 0.2 shows as 0.3.
  const mqmScore = (weights, spans) => {
    const weightOf = (severity, category) => {
      const sev = String(severity).toLowerCase();
      const cat = String(category || "").toLowerCase();
      if (weights.non_translation_categories.includes(cat)) return weights.non_translation;
      const exception = weights.exceptions.find(
        (e) => e.severity.toLowerCase() === sev && e.category.toLowerCase() === cat);
      return exception ? exception.weight : (weights.severity[sev] || 0);
    };
    const total = spans.reduce((sum, s) => sum + weightOf(s.severity, s.category), 0);
    return Number(total.toFixed(4));
  };

  // The DOM counts UTF-16 units, the server code points: they differ after an emoji.
  const offsets = (text) => {
    const units = [];  // code point → unit
    let unit = 0;
    for (const character of text) {
      units.push(unit);
      unit += character.length;
    }
    units.push(unit);
    const pointOf = new Map(units.map((u, point) => [u, point]));
    return {
      toPoint: (u) => {
        if (u === null) return null;
        return pointOf.has(u) ? pointOf.get(u) : Array.from(text.slice(0, u)).length;
      },
      toUnit: (point) => (point === null ? null : units[point]),
      points: units.length - 1,
    };
  };

  const create = (box, options = {}) => {
    const {
      prefilled = [], saved = null, picker = null, nonTranslation = "", missingList = null,
      keys = {}, onChange = () => {},
    } = options;
    const showPicker = options.showPicker || ((on) => { picker.hidden = !on; });
    const text = box.textContent;
    const { toPoint, toUnit, points } = offsets(text);
    const words = [];
    for (const match of text.matchAll(/\S+/gu)) words.push([match.index, match.index + match[0].length]);
    let cursor = 0;
    let anchor = null;  // word index where a Shift+arrow selection started
    let pending = null;  // the span waiting for its MQM category
    let pressedAt = [0, 0];  // where the mouse went down: a click that moved was a selection

    // Spans in from the server or a draft (code points), kept in UTF-16 units.
    const fits = (s) => s && SEVERITIES.includes(s.severity) &&
      (s.category === null || typeof s.category === "string") &&
      ((s.start === null && s.end === null) ||
       (Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start < s.end && s.end <= points)) &&
      (s.prefilled === undefined || (Number.isInteger(s.prefilled) && s.prefilled >= 0 && s.prefilled < prefilled.length));
    const inward = (s) => ({ ...s, start: toUnit(s.start), end: toUnit(s.end) });
    let spans = Array.isArray(saved) && saved.every(fits)
      ? saved.map(inward)
      : prefilled.map((s, index) => inward({ ...s, prefilled: index }));

    const spansOut = () => spans.map((s) => {
      const out = { start: toPoint(s.start), end: toPoint(s.end), severity: s.severity, category: s.category || null };
      if (s.prefilled !== undefined && s.prefilled !== false) out.prefilled = s.prefilled;
      return out;
    });
    const editor = { box, text, spans: spansOut, focus: () => box.focus(), markMissing: null };

    const selection = () => {
      if (!words.length) return null;
      const from = anchor === null ? cursor : Math.min(anchor, cursor);
      const to = anchor === null ? cursor : Math.max(anchor, cursor);
      return [words[from][0], words[to][1]];
    };
    const spanAt = (offset) => spans.find((s) => s.start !== null && s.start <= offset && offset < s.end);
    const label = (s) => `${s.severity}${s.category ? ` · ${s.category}` : ""}`;

    // The text in pieces cut at every word, span and selection boundary (DOM nodes only).
    const draw = () => {
      const cuts = new Set([0, text.length]);
      words.forEach(([a, b]) => { cuts.add(a); cuts.add(b); });
      spans.forEach((s) => { if (s.start !== null) { cuts.add(s.start); cuts.add(s.end); } });
      const sorted = Array.from(cuts).sort((a, b) => a - b);
      const chosen = document.activeElement === box ? selection() : null;
      box.replaceChildren();
      for (let i = 0; i + 1 < sorted.length; i += 1) {
        const [a, b] = [sorted[i], sorted[i + 1]];
        const piece = document.createElement("span");
        piece.textContent = text.slice(a, b);
        piece.dataset.start = a;
        const marked = spanAt(a);
        if (marked) {
          piece.classList.add("err", `err-${marked.severity}`);
          if (marked.prefilled !== undefined) piece.classList.add("err-prefilled");
          piece.title = label(marked);
        }
        if (chosen && a >= chosen[0] && b <= chosen[1]) piece.classList.add("cursor");
        box.append(piece);
      }
      if (!missingList) return;
      missingList.replaceChildren();
      spans.filter((s) => s.start === null).forEach((s) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = `err err-${s.severity}`;
        button.textContent = `Missing content · ${label(s)} ×`;
        button.addEventListener("click", () => { spans = spans.filter((x) => x !== s); changed(); });
        item.append(button);
        missingList.append(item);
      });
    };
    const changed = () => { draw(); onChange(editor); };

    const askCategory = (span) => {
      if (!picker) return;
      pending = span;
      showPicker(true);
      picker.value = span.category || picker.options[0].value;
      picker.focus();
    };
    const closePicker = (keep) => {
      if (!pending) return;  // a picker shared by several editors: only the asking one answers
      const span = pending;
      if (keep) span.category = picker.value;
      else spans = spans.filter((s) => s !== span);
      if (keep && span.category === nonTranslation) {
        // Non-translation is always major and covers the whole text.
        spans = spans.filter((s) => s === span || s.start === null);
        Object.assign(span, { start: 0, end: text.length, severity: "major" });
      }
      pending = null;
      showPicker(false);
      box.focus();
      changed();
    };

    const mark = (range, severity) => {
      if (!range || range[0] >= range[1]) return;
      const same = spans.find((s) => s.start === range[0] && s.end === range[1]);
      if (same) {
        same.severity = severity;
        changed();
        return;
      }
      spans = spans.filter((s) => s.start === null || s.end <= range[0] || s.start >= range[1]);
      const span = { start: range[0], end: range[1], severity, category: null };
      spans.push(span);
      anchor = null;
      changed();
      askCategory(span);
    };
    editor.markMissing = (severity) => {
      const span = { start: null, end: null, severity, category: null };
      spans.push(span);
      changed();
      askCategory(span);
    };

    box.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key;
      let handled = true;
      if (key === "ArrowRight" || key === "ArrowLeft") {
        if (event.shiftKey && anchor === null) anchor = cursor;
        if (!event.shiftKey) anchor = null;
        cursor = Math.max(0, Math.min(words.length - 1, cursor + (key === "ArrowRight" ? 1 : -1)));
        draw();
      } else if (key === "1" || key === "2") {
        mark(selection(), SEVERITIES[Number(key) - 1]);
      } else if (key === "Delete" || key === "Backspace") {
        const range = selection();
        const under = range && spanAt(range[0]);
        if (under) { spans = spans.filter((s) => s !== under); changed(); }
      } else if (key === "m" || key === "M") {
        editor.markMissing(key === "M" ? "major" : "minor");
      } else if (key === "Escape") {
        anchor = null;
        draw();
      } else if (Object.hasOwn(keys, key) && keys[key]) {
        handled = keys[key](event) !== false;
      } else {
        handled = false;
      }
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
    });
    box.addEventListener("focus", draw);
    box.addEventListener("blur", draw);

    const offsetOf = (node, offset) => {
      const piece = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      if (!piece || !piece.dataset || piece.dataset.start === undefined) return null;
      return Number(piece.dataset.start) + (node.nodeType === Node.TEXT_NODE ? offset : 0);
    };
    box.addEventListener("mousedown", (event) => { pressedAt = [event.clientX, event.clientY]; });
    box.addEventListener("mouseup", () => {
      const chosen = window.getSelection();
      if (!chosen || chosen.isCollapsed) return;
      const a = offsetOf(chosen.anchorNode, chosen.anchorOffset);
      const b = offsetOf(chosen.focusNode, chosen.focusOffset);
      chosen.removeAllRanges();
      if (a !== null && b !== null) mark([Math.min(a, b), Math.max(a, b)], "minor");
    });
    box.addEventListener("click", (event) => {
      if (Math.abs(event.clientX - pressedAt[0]) + Math.abs(event.clientY - pressedAt[1]) > 3) return;
      const piece = event.target.closest("[data-start]");
      const under = piece && spanAt(Number(piece.dataset.start));
      if (!under) return;
      const next = SEVERITIES.indexOf(under.severity) + 1;
      if (next >= SEVERITIES.length) spans = spans.filter((s) => s !== under);
      else under.severity = SEVERITIES[next];
      changed();
    });

    if (picker) {
      picker.addEventListener("keydown", (event) => {
        if (!pending || (event.key !== "Enter" && event.key !== "Escape")) return;
        event.preventDefault();
        event.stopPropagation();
        closePicker(event.key === "Enter");  // Esc drops the span
      });
      picker.addEventListener("click", () => closePicker(true));
    }

    draw();
    return editor;
  };

  // Drafts in the browser's localStorage, kept until the answer is recorded, so that a
  // reload or a crash loses nothing; a prefix per screen, expired after DRAFT_DAYS.
  const DRAFT_DAYS = 14;
  const drafts = (prefix, id) => {
    const key = prefix + id;
    let storage = null;
    try { storage = window.localStorage; } catch (error) { /* disabled storage */ }
    if (storage) {  // drafts of items never submitted (skipped, reassigned) expire
      const oldest = Date.now() - DRAFT_DAYS * 86400000;
      Object.keys(storage).filter((k) => k.startsWith(prefix) && k !== key).forEach((k) => {
        try {
          const draft = JSON.parse(storage.getItem(k));
          if (!draft || !(draft.savedAt > oldest)) storage.removeItem(k);
        } catch (error) {
          storage.removeItem(k);
        }
      });
    }
    return {
      read: () => {
        if (!storage) return null;
        try { return JSON.parse(storage.getItem(key)); } catch (error) { return null; }
      },
      write: (draft) => {
        if (!storage) return;
        try { storage.setItem(key, JSON.stringify({ savedAt: Date.now(), ...draft })); } catch (error) { /* full */ }
      },
      remove: () => { if (storage) storage.removeItem(key); },
    };
  };

  return { create, mqmScore, drafts, SEVERITIES };
})();
