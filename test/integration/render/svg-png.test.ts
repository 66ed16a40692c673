import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLORS } from '../../../cli/render/svg';
import { cli } from '../../cli/cli-harness';
import { countColor, countNonWhite, decodePng } from './png';

/**
 * The SVGs as a browser draws them: Debian's chromium, headless, takes a screenshot of each, and
 * the PNG is decoded to check that shapes in our own colours are there (not a blank page, not
 * an XML error page). scripts/chromium.sh installs chromium. Under CI a missing chromium fails
 * the test; on a developer's machine it is skipped with a message.
 */

const CHROMIUM = 'chromium';
const available = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).status === 0;
const underCi = Boolean(process.env.CI) && process.env.CI !== '0' && process.env.CI !== 'false';
const work = mkdtempSync(join(tmpdir(), 'rt-svg-png-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Flags that work as root in a container, with no network and a fresh profile per run. */
function chromium(args: string[]) {
  const profile = mkdtempSync(join(work, 'profile-'));
  const result = spawnSync(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      ...args,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  rmSync(profile, { recursive: true, force: true });
  return result;
}

function size(svg: string): { width: number; height: number } {
  const match = /<svg [^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg);
  if (!match) throw new Error('the SVG has no width and height');
  return { width: Math.ceil(Number(match[1])), height: Math.ceil(Number(match[2])) };
}

const PICTURES: Array<[string, string[], string]> = [
  [
    'timeline with jitter bands',
    ['render', 'test/golden/fixtures/billing.next.yaml', '--target', 'kafka', '--format', 'svg'],
    COLORS.bandFill,
  ],
  [
    'topology',
    ['render', 'policies/billing.yaml', '--target', 'rabbitmq', '--view', 'topology', '--format', 'svg'],
    COLORS.dangerFill,
  ],
  [
    'simulation chart',
    ['simulate', 'policies/billing.yaml', '--outage', '10m', '--rate', '100/s', '--format', 'svg'],
    COLORS.danger,
  ],
];

describe('SVG pictures in headless Chromium', () => {
  if (!available) {
    it(
      underCi
        ? 'needs chromium under CI (run bash scripts/chromium.sh)'
        : 'skipped: chromium is not installed (bash scripts/chromium.sh)',
      (context) => {
        if (underCi)
          throw new Error(
            'chromium is not installed: scripts/chromium.sh must run before the tests under CI',
          );
        context.skip();
      },
    );
    return;
  }

  it.each(PICTURES)('%s renders, parses and is not blank', async (name, argv, color) => {
    const result = await cli(...argv);
    expect(result.code).toBe(0);
    const file = join(work, `${name.replace(/\W+/g, '-')}.svg`);
    writeFileSync(file, result.out);

    // Chromium's own XML parser: a malformed SVG comes back as a parsererror document.
    const dom = chromium(['--dump-dom', `file://${file}`]);
    expect(dom.status).toBe(0);
    expect(dom.stdout).toContain('<svg');
    expect(dom.stdout).not.toMatch(/parsererror|This page contains the following errors/);

    const { width, height } = size(result.out);
    const png = join(work, `${name.replace(/\W+/g, '-')}.png`);
    const shot = chromium([`--screenshot=${png}`, `--window-size=${width},${height}`, `file://${file}`]);
    expect(shot.status, shot.stderr).toBe(0);
    const image = decodePng(readFileSync(png));
    expect([image.width, image.height]).toEqual([width, height]);
    const total = image.width * image.height;
    const drawn = countNonWhite(image);
    // Text, lines and boxes cover a few percent of the picture; a blank page covers nothing,
    // and the white background keeps it well under half.
    expect(drawn / total).toBeGreaterThan(0.01);
    expect(drawn / total).toBeLessThan(0.5);
    // Our own colour is there: the shapes were drawn, not an error page or a fallback.
    expect(countColor(image, color)).toBeGreaterThan(200);
  });
});
