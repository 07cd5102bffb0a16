// Preloaded into a measured child (`node --import ./bench/max-rss.mjs …`): when the process exits, writes
// its own peak resident set size (`process.resourceUsage().maxRSS`, KiB) as JSON to file descriptor 3,
// which bench/scale.ts opens as a pipe. Plain JavaScript so that no loader adds to what it measures.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS }));
  } catch {
    // Started without a pipe on fd 3 (by hand): nothing to report to.
  }
});
