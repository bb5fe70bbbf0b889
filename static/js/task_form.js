// The task form (add and edit) shows the fields of the chosen task type only. Each field
// that some types lack carries data-protocols="type type …" (built from the protocol
// declarations, annotation/protocols); hidden fields are disabled, so they are not sent and
// the server takes the type's defaults. Without this script every field shows with a note.
(function () {
  "use strict";
  function update(form, select) {
    var type = select.value;
    form.querySelectorAll("[data-protocols]").forEach(function (label) {
      var applies = label.getAttribute("data-protocols").split(" ").indexOf(type) >= 0;
      label.hidden = !applies;
      label.querySelectorAll("input, select, textarea").forEach(function (input) {
        if (!input.hasAttribute("data-locked")) {
          input.disabled = !applies;
        }
      });
    });
  }
  document.querySelectorAll("form.task-form").forEach(function (form) {
    var select = form.querySelector("[name=task_type]");
    if (!select) {
      return;
    }
    // Fields the server disabled (a launched task) stay disabled whatever the type.
    form.querySelectorAll("input:disabled, select:disabled, textarea:disabled").forEach(function (input) {
      input.setAttribute("data-locked", "");
    });
    form.querySelectorAll(".task-form-note, .applies-to").forEach(function (note) {
      note.hidden = true;
    });
    select.addEventListener("change", function () { update(form, select); });
    update(form, select);
  });
})();
