// The site's small behaviours, none of which a page needs to work (a form submits, the docs list shows):
// - a form or button with data-confirm asks before it submits (cancelling a tournament, leaving the ladder);
// - the docs' list of pages folds away on a narrow screen and stays open on a wide one;
// - a box that scrolls sideways (a wide table on a phone) takes the keyboard's focus, so the arrows scroll it.
"use strict";

document.addEventListener("submit", (event) => {
  const button = event.submitter;
  const question = (button && button.dataset.confirm) || event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

document.addEventListener("DOMContentLoaded", () => {
  const nav = document.querySelector("details.doc-nav");
  if (!nav) return;
  const wide = window.matchMedia("(min-width: 48rem)");
  const fit = () => { nav.open = wide.matches; };
  fit();
  wide.addEventListener("change", fit);
});

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".scroll:not([tabindex])").forEach((box) => { box.tabIndex = 0; });
});
