// pms ui: the little the page does with JavaScript on. Everything works
// without it (forms post, links open); this only asks before a change that
// cannot be undone from the page.
"use strict";
document.addEventListener("click", function (e) {
  var b = e.target.closest("button[data-confirm]");
  if (b && !window.confirm(b.getAttribute("data-confirm"))) {
    e.preventDefault();
  }
});
