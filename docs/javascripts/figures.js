// Notebook figures: shown fitted to the column; a click shows one at its own size (as in
// Jupyter; the output area then scrolls sideways), another click fits it again.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll(".jupyter-wrapper .jp-RenderedImage img")) {
    img.title = "click: full size / fit to the page";
    img.addEventListener("click", () => img.classList.toggle("full-size"));
  }
});
