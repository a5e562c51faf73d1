// @ts-check
// Loaded by the host page next to an <iframe src="…/embed.html?…">: resizes each willitfit
// iframe to its content. Messages are accepted only from this script's own origin and only
// from one of our iframes; nothing in them is ever inserted into the page.
const origin = new URL(import.meta.url).origin;

window.addEventListener('message', (e) => {
  if (e.origin !== origin) return;
  const d = e.data;
  if (!d || d.type !== 'willitfit:height' || !Number.isFinite(d.height)) return;
  for (const f of document.querySelectorAll('iframe')) {
    if (f.contentWindow === e.source) {
      f.style.height = `${Math.min(4000, Math.max(40, d.height))}px`;
      break;
    }
  }
});
