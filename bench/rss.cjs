// Preloaded into benchmarked processes: reports the process's peak RSS on exit.
process.on('exit', () => {
  require('node:fs').writeSync(2, `\nbench-maxrss-kb ${process.resourceUsage().maxRSS}\n`);
});
