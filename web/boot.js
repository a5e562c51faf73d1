// The entry point of a prerendered page (scripts/prerender.mjs points its module script here
// instead of at app.js). The page is a whole answer before any script runs; the app and its
// modules are asked for only once the first frame is on screen. Loaded from the head, app.js's
// module graph (about 30 files) was fetched and compiled while the first frame was being made,
// on the same two cores: `npm run bench -- --static` on an idle 2-core machine, first
// contentful paint 68 ms with app.js in the head and 56 ms with this file, against 32-36 ms for
// a one-line page. rAF runs just before a frame, a task queued from it after that frame; a hidden
// tab runs no frames, so at most 100 ms are waited.
let started = false;
const start = () => {
  if (started) return;
  started = true;
  import('./app.js').catch((e) => { console.error(e); });
};
requestAnimationFrame(() => setTimeout(start, 0));
setTimeout(start, 100);
