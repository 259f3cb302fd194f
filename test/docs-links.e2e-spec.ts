import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './support/processes';

/**
 * The README and docs/ link into each other by relative paths and `#anchors`; a heading renamed or a
 * section moved breaks them silently, so every relative link is resolved here as GitHub renders it.
 */
const DOCS = [
  'README.md',
  'SECURITY.md',
  'clients/typescript/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, with inline code spans emptied (neither holds links or headings). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's heading ids: lower case, punctuation dropped (not `-` or `_`), spaces to `-`, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .toLowerCase();
    const base = text.replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Every `[text](target)` link of the prose whose target is not an absolute URL. */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const line of prose(markdown)) {
    const text = line.replace(/`[^`]*`/g, '``');
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(match[1])) links.push(match[1]);
    }
  }
  return links;
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('Documentation links', () => {
  it('finds the documents, their headings and their links', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/API.md', 'docs/BENCHMARKS.md']));
    expect(anchorsOf(read('README.md')).size).toBeGreaterThan(3);
    expect(relativeLinks(read('README.md')).length).toBeGreaterThan(5);
  });

  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf(
      '# Title\n## Contacts list at depth: `npm run bench:contacts`\n```\n# not a heading\n```\n' +
        '## Webhook subscriptions (REST hooks)\n## Benchmarks\n### Benchmarks\n',
    );
    expect([...anchors]).toEqual([
      'title',
      'contacts-list-at-depth-npm-run-benchcontacts',
      'webhook-subscriptions-rest-hooks',
      'benchmarks',
      'benchmarks-1',
    ]);
  });

  it.each(DOCS)('%s: every relative link reaches a file, and its #anchor a heading there', (doc) => {
    const broken: string[] = [];
    for (const link of relativeLinks(read(doc))) {
      const [path, anchor] = link.split('#', 2);
      const target = path ? relative(ROOT, join(ROOT, dirname(doc), decodeURI(path))) : doc;
      if (!existsSync(join(ROOT, target))) {
        broken.push(`${link}: no file ${target}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(join(ROOT, target)).isDirectory() || !target.endsWith('.md')) {
        broken.push(`${link}: an anchor into ${target}, which has no headings`);
      } else if (!anchorsOf(read(target)).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reaches every document from the README, and every doc links back to it', () => {
    const fromReadme = new Set(relativeLinks(read('README.md')).map((link) => link.split('#')[0]));
    for (const doc of DOCS.filter((name) => name !== 'README.md')) {
      expect([doc, fromReadme.has(doc)]).toEqual([doc, true]);
    }
    for (const doc of DOCS.filter((name) => name.startsWith('docs/'))) {
      const back = relativeLinks(read(doc)).some((link) => link.split('#')[0] === '../README.md');
      expect([doc, back]).toEqual([doc, true]);
    }
  });
});
