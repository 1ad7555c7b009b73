/**
 * Mermaid diagrams of our Markdown, checked with the real `mermaid` package as GitHub shows them:
 * - {@link renderMermaid} renders them with mermaid's browser bundle in headless Debian Chromium
 *   (`/usr/bin/chromium`, driven by puppeteer-core), as GitHub's viewer does in the reader's
 *   browser, with `securityLevel: 'strict'`: the whole check, layout and text included. Where
 *   Chromium is missing ({@link hasChromium}) tests skip it; CI installs it (`.ci/run`).
 * - {@link parseMermaid} checks them with mermaid's own parser in Node, so `npm test` checks
 *   every diagram with nothing but Node and npm. mermaid is ESM only and needs a DOM for the
 *   DOMPurify it sanitizes labels with, so it runs in a child `node` process
 *   (`mermaid-parse.mjs`) under jsdom: Jest's CommonJS sandbox cannot import it.
 *
 * Nothing here touches the network: the bundle is read from node_modules and Chromium starts on a
 * blank page with a fresh profile in a temporary folder.
 * @see https://mermaid.js.org/config/usage.html#using-mermaid-render (mermaid.render)
 * @see https://mermaid.js.org/config/usage.html#mermaid-parse (mermaid.parse)
 * @see https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/creating-diagrams
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

/** Debian's Chromium, the browser the render tests drive; never one downloaded by puppeteer. */
const CHROMIUM = '/usr/bin/chromium';

/** Flags on top of puppeteer's own (`headless: true` adds `--headless=new`): no network, no GPU, root. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Bounds every step: launching Chromium, each call into the page (one render), the Node parse. */
const TIMEOUT_MS = 30_000;

/** What {@link renderMermaid} made of one diagram: its SVG, or mermaid's error message. */
export interface MermaidRender {
  /** The rendered `<svg>` element, as text. @default - the diagram failed to render */
  readonly svg?: string;
  /** Mermaid's error message (as thrown by `mermaid.render`). @default - the diagram rendered */
  readonly error?: string;
}

/**
 * The bodies of every ```mermaid fenced code block of `markdown`, in order, as GitHub reads them
 * (CommonMark fences): an opening fence of three or more backticks or tildes, indented at most
 * three spaces, whose info string's first word is `mermaid`; the block ends at a closing fence
 * of the same character at least as long, or at the end of the text. As many spaces as the
 * opening fence's indentation are removed from each line of the body.
 * @see https://spec.commonmark.org/0.31.2/#fenced-code-blocks
 */
export function mermaidBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  // lines: the body so far, or undefined in a fence of another language.
  let open: { fence: string; indent: number; lines?: string[] } | undefined;
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    if (open === undefined) {
      const opening = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
      if (opening === null) continue;
      const [, indent, fence, word] = opening;
      // A backtick fence's info string may not hold a backtick: then the line is no fence.
      if (fence.startsWith('`') && line.slice(indent.length + fence.length).includes('`')) continue;
      open = { fence, indent: indent.length, lines: word === 'mermaid' ? [] : undefined };
      continue;
    }
    const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (closing !== null && closing[1][0] === open.fence[0] && closing[1].length >= open.fence.length) {
      if (open.lines) blocks.push(open.lines.join('\n'));
      open = undefined;
      continue;
    }
    open.lines?.push(line.replace(new RegExp(`^ {0,${open.indent}}`), ''));
  }
  if (open?.lines) blocks.push(open.lines.join('\n'));
  return blocks;
}

/** Whether Debian's Chromium is installed at `/usr/bin/chromium`: the render tests skip without it. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/** Defined in the page: renders one diagram, resolving to a {@link MermaidRender}. */
const PAGE_SCRIPT = `
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
globalThis.renderDiagram = async (id, text) => {
  try {
    return { svg: (await mermaid.render(id, text)).svg };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
};
`;

/**
 * Renders each of `diagrams` with mermaid's browser bundle in one headless Chromium, closed
 * before this resolves, and returns the SVG or the error of each, in order. Rejects (and never
 * hangs) when Chromium cannot start or a step takes longer than 30 s.
 */
export async function renderMermaid(diagrams: readonly string[]): Promise<MermaidRender[]> {
  if (diagrams.length === 0) return [];
  const profile = mkdtempSync(join(tmpdir(), 'mermaid-chromium-'));
  try {
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: profile,
      args: CHROMIUM_ARGS,
      timeout: TIMEOUT_MS,
      protocolTimeout: TIMEOUT_MS,
    });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(TIMEOUT_MS);
      await page.addScriptTag({ path: require.resolve('mermaid/dist/mermaid.min.js') });
      await page.addScriptTag({ content: PAGE_SCRIPT });
      const results: MermaidRender[] = [];
      // Code as a string, not a function: a coverage run would instrument a function, and the
      // page has no coverage counters.
      for (const [i, text] of diagrams.entries()) {
        results.push(await page.evaluate(`renderDiagram(${JSON.stringify(`mermaid-${i}`)}, ${JSON.stringify(text)})`) as MermaidRender);
      }
      return results;
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Checks each of `diagrams` with mermaid's parser in Node (one child process for all, as it
 * takes seconds to load mermaid and jsdom) and returns, in order, `undefined` for a valid
 * diagram, else mermaid's error message. For a gantt chart it also resolves the tasks' dates,
 * the first step of mermaid's gantt renderer (the parser accepts 2024-13-45). Anything else
 * that only a render finds (layout, fonts) is for {@link renderMermaid}. Rejects when the child
 * fails or takes longer than 30 s.
 * @see https://mermaid.js.org/config/usage.html#mermaid-parse
 */
export function parseMermaid(diagrams: readonly string[]): Promise<(string | undefined)[]> {
  if (diagrams.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const script = join(__dirname, 'mermaid-parse.mjs');
    const child = execFile(process.execPath, [script], { timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${script} failed: ${error.message}${stderr ? `\n${stderr}` : ''}`));
        return;
      }
      resolve((JSON.parse(stdout) as (string | null)[]).map((e) => e ?? undefined));
    });
    child.stdin?.end(JSON.stringify(diagrams));
  });
}
