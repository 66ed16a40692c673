import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { visit } from 'unist-util-visit';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * Every link of every Markdown file in the tarball, read where an install puts it
 * (node_modules/retry-topology): a relative link names a file the package holds (and, with a
 * fragment, a heading of it); a link into the repository points at the release's tag, at a file
 * the repository holds. Contributor files (CONTRIBUTING.md, docs/contributing/, api/) are not
 * shipped, and are linked at the tag.
 */
const ROOT = join(__dirname, '..', '..');
const tarball = inject('tarball');
const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
  .trim()
  .split('\n')
  .map((file) => file.replace(/^package\//, ''));
const unpacked = mkdtempSync(join(tmpdir(), 'rt-links-'));
execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as {
  version: string;
};
const REPOSITORY = 'https://github.com/retry-topology/retry-topology/';
const AT_TAG = `${REPOSITORY}blob/v${manifest.version}/`;
const tracked = new Set(
  execFileSync('git', ['-C', ROOT, 'ls-files'], { encoding: 'utf8' }).trim().split('\n'),
);

interface Link {
  from: string;
  line: number;
  url: string;
}

function treeOf(file: string) {
  const text = readFileSync(join(unpacked, 'package', file), 'utf8');
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function textOf(node: Nodes): string {
  let text = '';
  visit(node, (child) => {
    if (child.type === 'text' || child.type === 'inlineCode') text += child.value;
  });
  return text;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  visit(treeOf(file), 'heading', (heading) => {
    const base = textOf(heading)
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}

const markdown = files.filter((file) => file.endsWith('.md'));
const links: Link[] = markdown.flatMap((from) => {
  const found: Link[] = [];
  visit(treeOf(from), (node) => {
    if (node.type === 'link' || node.type === 'definition') {
      found.push({ from, line: node.position?.start.line ?? 0, url: node.url });
    }
  });
  return found;
});

/** Why a link does not resolve once installed; undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  const { from, url } = link;
  if (url.startsWith(REPOSITORY)) {
    if (
      !url.startsWith(AT_TAG) &&
      !/^https:\/\/github\.com\/retry-topology\/retry-topology\/?(#.*)?$/.test(url)
    ) {
      return url.includes('/blob/') || url.includes('/tree/')
        ? `not at the release tag v${manifest.version}`
        : undefined;
    }
    const path = url.startsWith(AT_TAG) ? (url.slice(AT_TAG.length).split('#')[0] ?? '') : '';
    if (
      path &&
      !tracked.has(path) &&
      ![...tracked].some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`))
    )
      return `${path} is not in the repository`;
    return undefined;
  }
  if (/^[a-z][a-z+.-]*:/i.test(url)) return undefined;
  const [path = '', fragment] = url.split('#');
  const target = path === '' ? from : posix.normalize(posix.join(dirname(from), path)).replace(/\/$/, '');
  const isFile = files.includes(target);
  const isFolder = files.some((file) => file.startsWith(`${target}/`));
  if (!isFile && !isFolder) return `${target} is not in the package`;
  if (fragment && isFile && target.endsWith('.md') && !anchorsOf(target).has(fragment))
    return `${target} has no heading #${fragment}`;
  return undefined;
}

describe('the links of the packed docs, once installed', () => {
  it('are found: the README and the docs link to each other', () => {
    expect(markdown).toContain('README.md');
    expect(links.length).toBeGreaterThan(200);
  });

  it('every one resolves to a file in the package, or to the repository at the release tag', () => {
    const broken = links.flatMap((link) => {
      const because = brokenBecause(link);
      return because ? [`${link.from}:${link.line} ${link.url}: ${because}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('the check itself finds a link that goes nowhere', () => {
    expect(brokenBecause({ from: 'docs/cli.md', line: 1, url: '../CONTRIBUTING.md' })).toMatch(
      /not in the package/,
    );
    expect(brokenBecause({ from: 'README.md', line: 1, url: 'docs/cli.md#no-such-heading' })).toMatch(
      /no heading/,
    );
    expect(
      brokenBecause({ from: 'README.md', line: 1, url: `${REPOSITORY}blob/main/CONTRIBUTING.md` }),
    ).toMatch(/release tag/);
  });
});
