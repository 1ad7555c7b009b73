import { run } from './cli';

void run(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  tty: { out: process.stdout.isTTY === true, err: process.stderr.isTTY === true },
}).then((code) => {
  process.exitCode = code;
});
