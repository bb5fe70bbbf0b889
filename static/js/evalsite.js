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

// Keyboard-first annotation: numbers score and rank, a/b/t prefer, Enter submits. A
// submit's answer carries the next item's form, swapped in without loading the page (one
// round trip per judgment); setup() then binds it as a page load would.
(function () {
  if (!document.getElementById("judgment")) return;
  let bound = null;  // aborting it removes the previous item's document listeners

  // The next item in place of this one. The URL stays the task's annotate page, which
  // resumes the item on reload; replaceState, so Back leaves the task as before.
  const swapIn = (html, url) => {
    const fresh = document.createElement("template");
    fresh.innerHTML = html;
    ["div.task-progress", "#judgment", "details.skip-item"].forEach((selector) => {
      const old = document.querySelector(selector);
      const replacement = fresh.content.querySelector(selector);
      if (old && replacement) old.replaceWith(replacement);
    });
    document.querySelectorAll("ul.messages").forEach((list) => list.remove());
    const instructions = document.getElementById("instructions");
    if (instructions) instructions.open = false;
    history.replaceState(null, "", url);
    window.scrollTo(0, 0);
    setup();
    const first = document.querySelector("#judgment [autofocus]");
    if (first) first.focus();
  };

  const setup = () => {
    if (bound) bound.abort();
    bound = new AbortController();
    const form = document.getElementById("judgment");
    const status = document.getElementById("submit-status");
    let submitted = false;

    const say = (text, kind) => {
      if (!status) return;
      status.textContent = text;
      status.className = `submit-status ${kind || ""}`;
      status.hidden = !text;
    };
    const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
    const detail = async (response) => {
      try { return await response.json(); } catch (error) { return null; }
    };

    // The answer goes with fetch, so that a lost connection or a database restart (503) is
    // retried here with the same body: safe, as the server records one answer per slot and
    // treats a repeat as already saved. Without JavaScript the form posts as usual.
    const send = async () => {
      const body = new FormData(form);
      const headers = {
        "X-Requested-With": "fetch",
        "X-CSRFToken": body.get("csrfmiddlewaretoken"),
        Accept: "application/json",
      };
      const button = form.querySelector("button[type=submit]");
      if (button) button.disabled = true;
      let backoff = 1000;
      for (;;) {
        let response = null;
        try {
          response = await fetch(form.action, { method: "POST", body, headers, credentials: "same-origin" });
        } catch (error) {
          response = null;  // network error: the server is unreachable
        }
        if (response && response.ok) {
          const data = response.redirected ? null : await detail(response);
          if (data && data.html) {
            swapIn(data.html, data.next);
            return;
          }
          say("Saved.", "saved");
          window.location.assign((data && data.next) || (response.redirected ? response.url : window.location.href));
          return;
        }
        if (response && ![502, 503, 504].includes(response.status)) {
          const data = await detail(response);
          say((data && data.error) || `Not saved: the server answered ${response.status}.`, "error");
          if (status && data && data.next && [404, 409].includes(response.status)) {
            const link = document.createElement("a");
            link.href = data.next;
            link.textContent = " Take the next item.";
            status.append(link);
          }
          if (button) button.disabled = false;
          submitted = false;
          return;
        }
        say("Connection lost — retrying…", "retrying");
        const retryAfter = response ? Number(response.headers.get("Retry-After")) * 1000 : 0;
        await pause(Math.max(backoff, retryAfter || 0));
        backoff = Math.min(backoff * 2, 10000);
      }
    };

    const submit = () => {
      if (submitted) return;  // one submit per page: a held Enter key cannot post twice
      if (!form.reportValidity()) return;
      form.requestSubmit();
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (submitted) return;
      submitted = true;
      send();
    });

    const choose = (name, value) => {
      const input = form.querySelector(`input[name="${name}"][value="${value}"]`);
      if (!input) return false;
      input.checked = true;
      input.focus({ preventScroll: true });
      return true;
    };

    // Likert: the active question takes the number keys, then the next question is active.
    const scales = Array.from(form.querySelectorAll("fieldset.scale"));
    let active = 0;
    const activate = (index) => {
      active = Math.max(0, Math.min(index, scales.length - 1));
      scales.forEach((scale, i) => scale.classList.toggle("active", i === active));
    };
    if (scales.length) activate(0);
    scales.forEach((scale, i) => scale.addEventListener("change", () => activate(i + 1)));

    // Pairwise (two translations side by side): a, b and t choose the preference.
    const preferences = form.querySelector(".pair") !== null;

    // Ranking: arrows move between translations, numbers give the focused one its rank.
    const rows = Array.from(form.querySelectorAll(".rank-row"));
    let row = 0;
    const focusRow = (index) => {
      row = Math.max(0, Math.min(index, rows.length - 1));
      rows.forEach((element, i) => element.classList.toggle("active", i === row));
    };
    if (rows.length) focusRow(0);
    rows.forEach((element, i) => element.addEventListener("click", () => focusRow(i)));

    // An incomplete answer: the browser points at the first missing field, and the keyboard
    // follows it there, so the number keys rank the row that is highlighted as missing. Every
    // invalid field fires "invalid"; each looks up the first, so the last event agrees.
    const followMissing = () => {
      const missing = form.querySelector("input:invalid, textarea:invalid");
      const missingRow = missing && missing.closest(".rank-row");
      if (missingRow) focusRow(rows.indexOf(missingRow));
    };
    form.addEventListener("invalid", followMissing, true);

    const textarea = form.querySelector("textarea.post-edit");
    if (textarea) {
      textarea.focus();
      textarea.setSelectionRange(textarea.value.length, textarea.value.length);
    }

    // 0-100 scores: the number box is the keyboard's way in, the slider the mouse's. The slider
    // shows no thumb until the annotator chooses (a thumb at 50 anchors them), and an empty
    // score is refused with a message saying how to give one.
    const UNSCORED = "Give a score from 0 to 100 first: click the slider or type a number.";
    form.querySelectorAll('input[type=range][data-for]').forEach((range) => {
      const box = form.querySelector(`input[name="${range.dataset.for}"]`);
      const explain = () => {
        box.setCustomValidity(box.validity.valueMissing || box.value === "" ? UNSCORED : "");
      };
      range.addEventListener("input", () => {
        range.classList.remove("unset");
        box.value = range.value;
        explain();
      });
      box.addEventListener("input", () => {
        if (box.value !== "") {
          range.value = box.value;
          range.classList.remove("unset");
        } else {
          range.classList.add("unset");
        }
        explain();
      });
      explain();
    });

    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.target.matches && event.target.matches("input.score-box")) {
        if (event.key === "Enter") { event.preventDefault(); submit(); }
        return;
      }
      if (textarea && event.target === textarea) {
        if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); submit(); }
        if (event.key === "Escape") { textarea.value = document.getElementById("original-mt").value; }
        return;
      }
      const key = event.key.toLowerCase();
      if (key === "enter") { event.preventDefault(); submit(); return; }
      if (preferences && ["a", "b", "t"].includes(key)) {
        choose("preference", key.toUpperCase());
        event.preventDefault();
        return;
      }
      if (/^[0-9]$/.test(key)) {
        if (scales.length) {
          const scale = scales[active];
          const name = scale.dataset.question;
          if (choose(name, key)) { activate(active + 1); event.preventDefault(); }
        } else if (rows.length) {
          if (choose(`rank-${row}`, key)) { focusRow(row + 1); event.preventDefault(); }
        }
        return;
      }
      if (rows.length && (key === "arrowdown" || key === "j")) { focusRow(row + 1); event.preventDefault(); }
      if (rows.length && (key === "arrowup" || key === "k")) { focusRow(row - 1); event.preventDefault(); }
    }, { signal: bound.signal });
  };
  setup();
})();

// Invitation links carry their code in the fragment (never sent to the server): put it in the
// forms, and ask (in a POST body) which campaign and role it is for, to say so on the page.
(function () {
  const page = document.getElementById("invitation");
  if (!page) return;
  const code = document.getElementById("invitation-code");
  const title = document.getElementById("invitation-title");
  const about = document.getElementById("invitation-about");
  const csrf = page.querySelector('input[name="csrfmiddlewaretoken"]');
  const use = (value) => {
    page.querySelectorAll('input[name="token"]').forEach((input) => { input.value = value; });
  };
  const describe = async (value) => {
    if (!value || !csrf) return;
    const body = new FormData();
    body.append("token", value);
    let response = null;
    try {
      response = await fetch(page.dataset.details, {
        method: "POST", body, credentials: "same-origin", headers: { "X-CSRFToken": csrf.value },
      });
    } catch (error) {
      return;  // the forms still work; the server names the campaign after a submit
    }
    const data = await response.json().catch(() => null);
    if (!data) return;
    // A used, expired or unknown code: say so instead of offering forms that cannot work.
    page.querySelectorAll("form").forEach((form) => { form.hidden = !response.ok; });
    if (response.ok) {
      title.textContent = `Join ${data.campaign} as ${data.role}`;
      const expires = `${data.expires_at.slice(0, 16).replace("T", " ")} UTC`;
      about.textContent = `This invitation makes you ${data.role} of ${data.campaign}; it expires on ${expires}.`;
      about.className = "muted";
      code.closest("label").hidden = true;  // it came with the link and works: nothing to type
    } else {
      title.textContent = "This invitation cannot be used";
      about.textContent = data.error.charAt(0).toUpperCase() + data.error.slice(1) + ".";
      about.className = "error";
    }
  };
  if (window.location.hash) {
    code.value = decodeURIComponent(window.location.hash.slice(1));
    history.replaceState(null, "", window.location.pathname);
  }
  if (code.value) {
    use(code.value.trim());
    describe(code.value.trim());
  }
  code.addEventListener("change", () => { use(code.value.trim()); describe(code.value.trim()); });
  const username = page.querySelector('input[name="username"]');
  if (username && code.value) username.focus();
})();

// Behaviour that would otherwise be inline handlers, which the Content-Security-Policy forbids.
(function () {
  document.querySelectorAll("[data-select-on-click]").forEach((input) => {
    input.addEventListener("click", () => input.select());
  });
  // Copy buttons: the text of the input the button names.
  document.querySelectorAll("[data-copy]").forEach((button) => {
    button.addEventListener("click", async () => {
      const input = document.getElementById(button.dataset.copy);
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch (error) {
        document.execCommand("copy");  // no clipboard API outside secure contexts
      }
      button.textContent = "Copied";
    });
  });
})();

// Irreversible actions ask first: a dialog with the form's question (annotation/confirmations.py
// wrote it); the form then carries "confirmed", without which the server asks on a confirm page.
(function () {
  const asking = document.querySelectorAll("form[data-confirm]");
  if (!asking.length) return;
  const dialog = document.createElement("dialog");
  dialog.className = "confirm-dialog";
  dialog.setAttribute("aria-labelledby", "confirm-question");
  dialog.innerHTML = '<form method="dialog"><h2 id="confirm-question"></h2><p></p>' +
    '<div class="confirm-actions"><button value="yes" class="danger"></button>' +
    '<button value="no" autofocus>Cancel</button></div></form>';
  document.body.append(dialog);
  let pending = null;
  asking.forEach((form) => form.addEventListener("submit", (event) => {
    if (form.querySelector('input[name="confirmed"]')) return;
    event.preventDefault();
    pending = form;
    dialog.querySelector("h2").textContent = form.dataset.confirm;
    dialog.querySelector("p").textContent = form.dataset.confirmDetail;
    dialog.querySelector("button[value=yes]").textContent = form.dataset.confirmButton;
    dialog.returnValue = "";
    dialog.showModal();
  }));
  dialog.addEventListener("close", () => {
    const form = pending;
    pending = null;
    if (!form || dialog.returnValue !== "yes") return;
    const confirmed = document.createElement("input");
    Object.assign(confirmed, { type: "hidden", name: "confirmed", value: "1" });
    form.append(confirmed);
    form.submit();
  });
})();

// "Add a task" in a draft campaign's header opens the form it points to.
(function () {
  const adding = document.getElementById("add-task");
  if (!adding) return;
  document.querySelectorAll('a[href="#add-task"]').forEach((link) => {
    link.addEventListener("click", () => { adding.open = true; });
  });
})();
