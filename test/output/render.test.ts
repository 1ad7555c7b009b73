import { parse } from 'yaml';
import { renderYaml } from '../../src/output/render';

describe('renderYaml', () => {
  it('quotes strings that YAML 1.1 readers (kubectl, Argo CD, Helm) would turn into booleans or numbers', () => {
    const doc = { metadata: { name: 'on' }, labels: { 'spot-ok': 'yes', gpu: 'n', off: 'Off' }, tags: { num: '1_000', bin: '0b101', oct: '0777' }, userData: 'yes' };
    const text = renderYaml([doc]);
    expect(parse(text, { version: '1.1' })).toEqual(doc);
    expect(parse(text, { version: '1.2' })).toEqual(doc);
  });

  it('keeps long strings on one line so output is byte-stable', () => {
    const userData = `#!/bin/bash\n${'x'.repeat(500)}\n`;
    expect(renderYaml([{ userData }])).toBe(`userData: |\n  #!/bin/bash\n  ${'x'.repeat(500)}\n`);
  });

  it('separates documents with ---', () => {
    expect(renderYaml([{ a: 1 }, { b: 2 }])).toBe('a: 1\n---\nb: 2\n');
  });
});
