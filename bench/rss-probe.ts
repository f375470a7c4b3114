// Preloaded into a benchmarked child (`node -r rss-probe.js …`): on exit it reports the process's peak
// resident set size (worker threads included) on stderr, where bench/dataset.ts reads it.
process.on('exit', () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
