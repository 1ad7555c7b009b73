import { paintErrors, paintFor } from '../command-line/colour';
import { upgradeCommand } from './command';

// Entry of `npm run upgrade`: a bundle of its own, built without imports/, so the upgrade
// can regenerate imports/ when they are missing or broken (scripts/run.cjs).
void upgradeCommand(process.argv.slice(3), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: paintErrors(paintFor(process.stderr.isTTY === true, process.env), (line) => process.stderr.write(`${line}\n`)),
}).then((code) => {
  process.exitCode = code;
});
