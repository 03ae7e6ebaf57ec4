// The file view's keys: n / p jump to the next / previous run of missed lines, j / k to the next /
// previous line; "Next miss" jumps from the current line instead of always to the first miss.
// Without this script the page works the same through its links (#L<number>).
(function () {
  "use strict";

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#coverage-lines tbody tr"));
  }

  function currentIndex(all) {
    var id = window.location.hash.slice(1);
    for (var i = 0; i < all.length; i++) {
      if (all[i].id === id) {
        return i;
      }
    }
    // No line chosen yet: the first line at the top of the window.
    for (var j = 0; j < all.length; j++) {
      if (all[j].getBoundingClientRect().bottom > 0) {
        return j - 1;
      }
    }
    return -1;
  }

  function go(row) {
    if (row) {
      window.location.hash = row.id;
    }
  }

  function isMissStart(all, i) {
    return all[i].className === "coverage-miss" && (i === 0 || all[i - 1].className !== "coverage-miss" ||
      Number(all[i - 1].id.slice(1)) !== Number(all[i].id.slice(1)) - 1);
  }

  function jumpMiss(step) {
    var all = rows();
    var i = currentIndex(all);
    for (i += step; i >= 0 && i < all.length; i += step) {
      if (isMissStart(all, i)) {
        go(all[i]);
        return;
      }
    }
  }

  function jumpLine(step) {
    var all = rows();
    var i = Math.min(Math.max(currentIndex(all) + step, 0), all.length - 1);
    go(all[i]);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var next = document.getElementById("coverage-next-miss");
    if (next) {
      next.addEventListener("click", function (event) {
        event.preventDefault();
        jumpMiss(1);
      });
    }
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.altKey || event.ctrlKey || event.metaKey ||
          (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)))) {
        return;
      }
      var actions = { n: [jumpMiss, 1], p: [jumpMiss, -1], j: [jumpLine, 1], k: [jumpLine, -1] };
      var action = actions[event.key];
      if (action) {
        event.preventDefault();
        action[0](action[1]);
      }
    });
  });
})();
