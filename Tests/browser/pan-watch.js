// Watches a page while it pans (Tests/browser/test_webapp.py, scripts/metro-pan.py): every resource timing kept
// (not the first 250), the main thread's long tasks and the gaps between animation frames in window.panWatch until
// window.panWatch.on is set false.
performance.setResourceTimingBufferSize(100000);
window.panWatch = { longTasks: [], frameGaps: [], last: performance.now(), on: true };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.panWatch.longTasks.push(Math.round(e.duration));
}).observe({ type: 'longtask' });
const frame = (now) => {
  const w = window.panWatch;
  w.frameGaps.push(now - w.last);
  w.last = now;
  if (w.on) requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
