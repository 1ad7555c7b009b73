/**
 * Loading helpers for the config-layer tests: write a project with the shared
 * builders, run {@link loadPlatform} on it, and return what a user would see.
 */
import { LoadResult, loadPlatform } from '../../src/config/load';
import { formatProblem, InputError } from '../../src/input/problems';
import { loadPlan } from '../../src/model/checks';
import { ProjectInput, writeProject } from '../builders';

/** Loads a project that must be valid; the test fails with the problems otherwise. */
export function load(input: ProjectInput = {}): LoadResult {
  return loadPlatform(writeProject(input).configPath);
}

/** The warnings of a project that must be valid, one formatted line each: the config's and its plan's, as a run prints them. */
export function warningsOf(input: ProjectInput = {}): string[] {
  return loadPlan(writeProject(input).configPath).warnings.map(formatProblem);
}

/**
 * The problems a project must fail with, one formatted line each
 * (`file:line:col: path: message`), exactly as the command line prints them.
 */
export function problemsOf(input: ProjectInput): string[] {
  return inputErrorOf(() => loadPlatform(writeProject(input).configPath)).problems.map(formatProblem);
}

/** Every problem of a run (the config's and its plan's: budgets), one formatted line each. */
export function runProblemsOf(input: ProjectInput): string[] {
  return inputErrorOf(() => loadPlan(writeProject(input).configPath)).problems.map(formatProblem);
}

/** The {@link InputError} that `run` throws; any other outcome fails the test. */
export function inputErrorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError, but the project loaded');
}

/** Jest matcher for "some problem line matches `re`". */
export function aProblem(re: RegExp): unknown {
  return expect.arrayContaining([expect.stringMatching(re)]);
}
