// The copy buttons of the access-token page: <button data-copy="ID"> copies the value of the
// element ID. A file, not an inline script, so the page's Content-Security-Policy can forbid those.
(function () {
  "use strict";

  function copy(button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) {
      return;
    }
    function selectForManualCopy() {
      target.focus();
      target.select();
      button.textContent = "Press Ctrl+C to copy";
    }
    if (!navigator.clipboard || !window.isSecureContext) {
      selectForManualCopy();
      return;
    }
    navigator.clipboard.writeText(target.value).then(function () {
      button.textContent = "Copied";
    }, selectForManualCopy);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var buttons = document.querySelectorAll("button[data-copy]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
      buttons[i].addEventListener("click", copy.bind(null, buttons[i]));
    }
  });
})();
