import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
/** Every page whose relative links must resolve: the README, docs/, and the packages' own READMEs it links to. */
const PAGES = ['README.md', ...DOCS, 'infra/local/simulator/README.md', 'clients/typescript/README.md'];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text a reader sees: no fenced blocks, no inline code (neither holds links). */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** Every Markdown link and image target of `markdown`, as written. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** GitHub's anchor of each heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, text] of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

describe('the README and docs/', () => {
  it('keep the README short enough to read in five minutes', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('link every docs/ page from the README', () => {
    const linked = new Set(linkTargets(read('README.md')).map((target) => target.split('#')[0]));
    expect(DOCS.length).toBeGreaterThan(0);
    expect(DOCS.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('have no relative link to a missing file or heading', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of linkTargets(read(page))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (relative(ROOT, join(ROOT, file)).startsWith('..') || !existsSync(join(ROOT, file))) {
          broken.push(`${page}: ${target} (no file ${file})`);
        } else if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads anchors as GitHub writes them', () => {
    expect([
      ...anchors(
        '## The AWS deployment, run locally: npm run start:cdk\n### Variants of Meta’s notifications (CONTRACT §16)\n## A\n## A',
      ),
    ]).toEqual([
      'the-aws-deployment-run-locally-npm-run-startcdk',
      'variants-of-metas-notifications-contract-16',
      'a',
      'a-1',
    ]);
  });
});
