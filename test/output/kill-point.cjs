// Preloaded (`node --require`) into a synth process by test/output/processes.test.ts: holds the
// process still at one step of its change of dist/ and argocd/ (src/output/transaction.ts), so the
// test's SIGKILL lands exactly there, whatever the machine's speed. Which step comes from
// KG_TEST_KILL_POINT; on reaching it the process writes KG_TEST_KILL_MARKER and waits (at most a
// minute, then goes on, so a test that never kills it cannot leave it behind):
// - `staging`: the fifth new file is staged under txn/new, no journal yet;
// - `committed`: the journal has just been renamed into place (the change is certain);
// - `moving`: the second staged file or folder has just been renamed into the tree.
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const { sep } = require('node:path');

const point = process.env.KG_TEST_KILL_POINT;
const marker = process.env.KG_TEST_KILL_MARKER;
const staged = `${sep}txn${sep}new${sep}`;

function hold() {
  fs.writeFileSync(marker, point);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}

let writes = 0;
const writeFile = fsp.writeFile;
fsp.writeFile = async function (path, ...rest) {
  await writeFile.call(this, path, ...rest);
  if (point === 'staging' && String(path).includes(staged) && ++writes === 5) hold();
};

let moves = 0;
const renameSync = fs.renameSync;
fs.renameSync = function (from, to) {
  renameSync(from, to);
  if (point === 'committed' && String(to).endsWith(`${sep}txn${sep}journal.json`)) hold();
  if (point === 'moving' && String(from).includes(staged) && !String(to).includes(`${sep}txn${sep}`) && ++moves === 2) hold();
};
