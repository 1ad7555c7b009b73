// Prints the plain closing line CI reads in any language: "N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed\n`);
  }
}
module.exports = SummaryReporter;
