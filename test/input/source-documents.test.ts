/**
 * A stream of YAML documents (a Kubernetes manifest) through SourceFile: each document
 * parsed and checked like a config file, positions counted in the whole file.
 */
import { formatProblem } from '../../src/input/problems';
import { MAX_EXPANDED_VALUES, SourceFile } from '../../src/input/source';

const docs = (text: string) => SourceFile.parseDocuments(text, 'app.yaml');
const problems = (text: string) => docs(text).flatMap((d) => d.problems.map(formatProblem));

describe('SourceFile.parseDocuments', () => {
  it('gives one SourceFile per document, each with its own value', () => {
    const files = docs('kind: A\n---\nkind: B\n---\nkind: C\n');
    expect(files.map((f) => (f.value as { kind: string }).kind)).toEqual(['A', 'B', 'C']);
  });

  it('locates a field of a later document at its line in the file', () => {
    const [, second] = docs('kind: A\nspec: {}\n---\nkind: B\nspec:\n  replicas: x\n');
    expect(formatProblem(second.problem(['spec', 'replicas'], 'bad'))).toBe('app.yaml:6:13: spec.replicas: bad');
  });

  it('leaves out documents with no content: a leading or trailing ---, only comments, null', () => {
    expect(docs('---\n# nothing here\n---\nkind: A\n---\n~\n---\n')).toHaveLength(1);
    expect(docs('')).toEqual([]);
  });

  it('fails on a syntax error in one document, at its line, and keeps the others', () => {
    const files = docs('kind: A\n---\nkind: [B\n---\nkind: C\n');
    expect(files.map((f) => f.problems.length > 0)).toEqual([false, true, false]);
    expect(problems('kind: A\n---\nkind: [B\n---\nkind: C\n')[0]).toMatch(/^app\.yaml:4:1: invalid YAML: a \[ list above is not closed: end it with \]/);
  });

  it('holds each document to the plain-data rules: duplicate keys, tags', () => {
    expect(problems('kind: A\n---\nkind: B\nkind: C\n')).toEqual(['app.yaml:4:1: duplicate key "kind" (first at line 3): each key may appear once in a map']);
    expect(problems('a: 1\n---\nb: !!binary aGk=\n')).toEqual([expect.stringMatching(/^app\.yaml:3:\d+: YAML tag !!binary is not supported/)]);
  });

  it('bounds the aliases of all documents together, and says so once', () => {
    const bomb = (n: number) => {
      const lines = [`l0: &l0 [${Array(10).fill('x').join(', ')}]`];
      for (let i = 1; i < n; i++) lines.push(`l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
      return lines.join('\n');
    };
    // Each document expands to ~111,111 values: fine alone, too many ten at a time.
    expect(problems(bomb(5))).toEqual([]);
    const many = Array(10).fill(bomb(5)).join('\n---\n');
    expect(problems(many)).toEqual([expect.stringMatching(new RegExp(`the aliases of this file expand to more than ${MAX_EXPANDED_VALUES} values`))]);
  });
});
