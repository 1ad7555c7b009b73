/**
 * The README is the front door and the reference lives in docs/ (contract section 6.1): the
 * README stays short and starts with the two commands, and every relative link between the
 * pages, anchors included, leads somewhere.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadPlatform } from '../src/config/load';
import { TERRAFORM_OUTPUTS } from '../src/config/terraform';
import { synthesize } from '../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from './builders';

/** The repository's root: the pages are read from it whatever the working directory. */
const ROOT = join(__dirname, '..');
const README = 'README.md';
const PAGES = [README, ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
/** A file of the repository, by its path from the root. */
const repoFile = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const inRepo = (path: string) => join(ROOT, path);

afterAll(removeProjects);

/** The lines of a page outside fenced code blocks, with inline code blanked out. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '``');
  });
}

/**
 * The anchor GitHub gives a heading: its text lowercased, inline code kept without the
 * backticks, every character but letters, digits, spaces, `-` and `_` dropped, spaces made
 * `-`; a repeated heading gets `-1`, `-2`, ...
 * @see https://github.com/Flet/github-slugger
 */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page's headings, as GitHub makes them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every relative link of a page: `[text](target)` outside code, but not URLs. */
function relativeLinks(page: string): { page: string; target: string }[] {
  const links: { page: string; target: string }[] = [];
  for (const line of prose(repoFile(page))) {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) links.push({ page, target: m[1] });
    }
  }
  return links;
}

describe('the README', () => {
  const readme = repoFile(README);

  it('is the front door: at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('starts with the two commands, before anything else', () => {
    const [, block] = /^# karpenter-gitops\n\n```sh\n([\s\S]*?)```\n/.exec(readme) ?? [];
    const commands = (block ?? '').split('\n').filter(Boolean).map((line) => line.replace(/#.*/, '').trim());
    expect(commands).toEqual(['npm ci && npm run synth', 'npm test']);
  });

  it('links every page of docs/', () => {
    const linked = new Set(relativeLinks(README).map((l) => normalize(l.target.split('#')[0])));
    const pages = PAGES.filter((p) => p !== README && existsSync(inRepo(p)));
    expect(pages.filter((p) => !linked.has(normalize(p)))).toEqual([]);
  });
});

describe('docs pages', () => {
  it.each(PAGES.filter((p) => p !== README))('%s starts with a title and a one-line purpose', (page) => {
    const [title, blank, purpose, after] = repoFile(page).split('\n');
    expect([title, blank, purpose.length > 0, after]).toEqual([expect.stringMatching(/^# \S/), '', true, '']);
  });
});

describe('relative links', () => {
  const links = [...new Map(PAGES.flatMap(relativeLinks).map((l) => [`${l.page} ${l.target}`, l])).values()];

  it('are found (the test reads the pages)', () => {
    expect(links.length).toBeGreaterThan(10);
  });

  it.each(links.map((l) => [l.page, l.target]))('%s -> %s resolves (file, and heading when it names one)', (page, target) => {
    const [path, anchor] = target.split('#');
    const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
    expect({ target, exists: existsSync(inRepo(file)) }).toEqual({ target, exists: true });
    if (anchor !== undefined) {
      expect(statSync(inRepo(file)).isFile()).toBe(true);
      expect(file).toMatch(/\.md$/);
      expect([...anchors(repoFile(file))]).toContain(anchor);
    }
  });
});

describe('slug', () => {
  it.each([
    ['Will it fit? (`npm run fit`)', 'will-it-fit-npm-run-fit'],
    ['Argo CD: bootstrap once, then everything is a commit', 'argo-cd-bootstrap-once-then-everything-is-a-commit'],
    ['The gate: `--fail-on`', 'the-gate---fail-on'],
    ['dist/SUMMARY.md', 'distsummarymd'],
  ])('%s -> %s', (heading, expected) => {
    expect(slug(heading)).toBe(expected);
  });
});

/** The text of a page outside fenced code blocks (inline code kept), as clauses: split at `.` or `;` and a space, lines joined. */
function clauses(page: string): string[] {
  let fenced = false;
  const lines = repoFile(page).split('\n').filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced && !/^\s*```/.test(line);
  });
  return lines.join(' ').split(/[.;]\s+/).map((c) => c.replace(/\s+/g, ' ').trim());
}

describe('the docs say what the code does', () => {
  describe('docs/windows.md: where a windowed cluster\'s AppProject comes from', () => {
    // prod: stage 2 with a window; the fleet's own AppProject `platform` (not `default`).
    const project = writeProject({
      config: aConfig({
        gitops: { project: 'platform' },
        windows: { weeknights: { timeZone: 'Europe/Berlin', days: ['mon', 'tue'], start: '22:00', duration: '6h' } },
        clusters: { demo: undefined, dev: { terraformOutputs: 'terraform/dev.json', stage: 1 }, prod: { terraformOutputs: 'terraform/prod.json', stage: 2, window: 'weeknights' } },
      }),
      terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) },
    });
    const files = synthesize(loadPlatform(project.configPath).platform);
    type Doc = { kind: string; metadata: { name: string }; spec: { source?: { path: string; targetRevision: string; directory?: { include?: string } }; syncWindows?: unknown[] } };
    const docs = (path: string) => parseAllDocuments(files.get(path) ?? '').map((d) => d.toJS() as Doc);
    const applications = [...files.keys()].filter((f) => f.startsWith('argocd/')).flatMap(docs).filter((d) => d.kind === 'Application');
    /** The revision of the Application in argocd/ that syncs `file`, as "the stage ref" or "the main branch". */
    const whereFrom = (file: string) => {
      const app = applications.find((a) => {
        const source = a.spec.source!;
        const include = source.directory?.include;
        return file.startsWith(`${source.path}/`) && (include === undefined || include.replace(/[{}]/g, '').split(',').includes(file.slice(source.path.length + 1)));
      });
      const revision = app?.spec.source?.targetRevision;
      return revision === 'karpenter-gitops/stage-2' ? 'the stage ref' : revision === 'HEAD' ? 'the main branch' : `unknown (${revision})`;
    };

    it('the code: the pool project, with the sync windows, is created by the stage-2 cluster\'s root from its stage ref; the fleet\'s project by the bootstrap from the main branch', () => {
      const [pools] = docs('dist/prod/apps/project.yaml');
      expect({ kind: pools.kind, name: pools.metadata.name, windows: pools.spec.syncWindows?.length }).toEqual({ kind: 'AppProject', name: 'prod-pools', windows: 1 });
      expect(docs('argocd/project.yaml')[0]).toMatchObject({ kind: 'AppProject', metadata: { name: 'platform' } });
      expect(docs('argocd/project.yaml')[0].spec.syncWindows).toBeUndefined();
      expect([whereFrom('dist/prod/apps/project.yaml'), whereFrom('argocd/project.yaml')]).toEqual(['the stage ref', 'the main branch']);
    });

    it('the page: every clause that says where an AppProject comes from says what the code does', () => {
      const said = clauses('docs/windows.md').filter((c) => /AppProject/.test(c) && /\b(?:comes?|created|synced) from\b|from the main branch|from its stage ref|from the cluster's own ref/.test(c));
      expect(said.length).toBeGreaterThanOrEqual(2);
      for (const clause of said) {
        const pool = /`<cluster>-pools`|sync windows/.test(clause);
        const fleet = /`argocd\/project\.yaml`/.test(clause);
        expect({ clause, pool, fleet, both: pool && fleet }).toMatchObject({ clause, both: false });
        const where = whereFrom(pool ? 'dist/prod/apps/project.yaml' : 'argocd/project.yaml');
        const other = where === 'the stage ref' ? /main branch|targetRevision/ : /stage ref|own ref/;
        expect({ clause, contradicts: other.test(clause) }).toEqual({ clause, contradicts: false });
      }
    });
  });

  describe('the Terraform outputs the loader reads, in every page that lists them', () => {
    const outputs = [...TERRAFORM_OUTPUTS.required, ...TERRAFORM_OUTPUTS.optional].sort();
    /** `output "name" { ... value = expr ... }` of terraform/outputs.tf, one line per value. */
    const declared = new Map([...repoFile('terraform/outputs.tf').matchAll(/^output "([^"]+)" \{[\s\S]*?^\s*value\s*=\s*(.+?)\s*$/gm)].map((m) => [m[1], m[2]]));
    /** The backticked names in the first column of the rows of the first markdown table at or after `heading`. */
    const tableNames = (page: string, heading: RegExp) => {
      const text = repoFile(page);
      const from = text.search(heading);
      const table = text.slice(from).match(/(?:^\|.*\n)+/m)?.[0] ?? '';
      return table.split('\n').slice(2).flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1])).sort();
    };

    it('terraform/outputs.tf declares them (the page\'s source)', () => {
      expect([...declared.keys()].sort()).toEqual(outputs);
    });

    it('docs/config.md shows each output of terraform/outputs.tf with its value, and describes each in its table', () => {
      const hcl = /```hcl\n([\s\S]*?)```/.exec(repoFile('docs/config.md'))?.[1] ?? '';
      const shown = new Map([...hcl.matchAll(/^output "([^"]+)"\s*\{ value = (.+) \}$/gm)].map((m) => [m[1], m[2]]));
      expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(declared));
      expect(tableNames('docs/config.md', /^\| output \| required \| becomes \|$/m)).toEqual(outputs);
    });

    it('terraform/README.md describes each in its output contract', () => {
      expect(tableNames('terraform/README.md', /^### Output contract$/m)).toEqual(outputs);
    });
  });

  it('docs/making-it-yours.md: whose files are whose, as .gitattributes marks them `fleet` (what the pull-request workflow and the merge read)', () => {
    const page = repoFile('docs/making-it-yours.md');
    const row = (whose: string) => {
      const line = page.split('\n').find((l) => l.startsWith(`| ${whose} |`)) ?? '';
      // A folder stands for a file in it, a placeholder for a name.
      return [...(line.split('|')[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((p) => p.includes('/') || p.startsWith('.') || /\.\w+$/.test(p))
        .map((p) => p.replace(/<[^>]+>/g, 'a').replace(/\/$/, '/a'));
    };
    const fleet = (paths: string[]) => {
      const r = spawnSync('git', ['check-attr', 'fleet', '--', ...paths], { cwd: ROOT, encoding: 'utf8' });
      return Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(': ')).map(([path, , value]) => [path, value]));
    };
    const [fleetRow, toolRow] = [row("the fleet's"), row("the tool's")];
    expect(fleetRow.length).toBeGreaterThan(3);
    expect(toolRow.length).toBeGreaterThan(10);
    expect(Object.entries(fleet(fleetRow)).filter(([, v]) => v !== 'set')).toEqual([]);
    expect(Object.entries(fleet(toolRow)).filter(([, v]) => v === 'set')).toEqual([]);
    const marked = repoFile('.gitattributes').split('\n').filter((l) => /^[^\s#]\S* .*\bfleet\b/.test(l)).map((l) => l.split(' ')[0].replace(/\/\*\*$/, '/a'));
    expect(marked.filter((p) => !fleetRow.includes(p))).toEqual([]);
  });

  it('docs/upgrades.md and every page name only what a clone has: no `../shared/`, and each test fixture they name exists', () => {
    const pages = [...PAGES, 'terraform/README.md'];
    expect(pages.filter((p) => repoFile(p).includes('../shared/'))).toEqual([]);
    const fixtures = [...new Set(pages.flatMap((p) => [...repoFile(p).matchAll(/`(test\/fixtures\/[^`<>*\s]+)`/g)].map((m) => m[1])))];
    expect(fixtures).toContain('test/fixtures/karpenter-1.15-standin/');
    expect(fixtures.filter((f) => !existsSync(inRepo(f)))).toEqual([]);
  });

  it('no page cites an issue of this project by number (a reader has no such list; say what changed instead)', () => {
    const cites = [...PAGES, 'terraform/README.md'].flatMap((p) => clauses(p).filter((c) => /(?<![\w/#-])issues? \d+\b/i.test(c.replace(/`[^`]*`/g, ''))).map((c) => `${p}: ${c}`));
    expect(cites).toEqual([]);
  });
});
