// @ts-check
// Installs the service worker (sw.js) that makes the hosted app work offline after the first
// visit. Only when served over http(s): a page opened from file:// (the offline copy) has no
// service worker and needs none.

export function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || !/^https?:$/.test(location.protocol)) return;
  if (document.documentElement.dataset.offline === 'true') return;
  // After the page has its first answer, so precaching never competes with the first verdict.
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url), { scope: './' }).catch(() => {
    /* private mode or disabled: the app works the same online */
  });
}
