import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { svgTimeline } from '../../cli/render/svg-timeline';
import { svgTopology } from '../../cli/render/svg-topology';

// Well-formed XML, checked by a parser made for it: a browser shows nothing (or an error box)
// for a malformed SVG, and GitHub will not show it inline.
const GOLDEN_SVGS = readdirSync('test/golden').filter((name) => name.endsWith('.svg'));

describe('SVG output is well-formed XML', () => {
  it('the validator catches what it should', () => {
    expect(XMLValidator.validate('<svg><text>a & b</text></svg>')).not.toBe(true);
    expect(XMLValidator.validate('<svg><g></svg>')).not.toBe(true);
  });

  it.each(GOLDEN_SVGS)('test/golden/%s', (name) => {
    expect(XMLValidator.validate(readFileSync(join('test/golden', name), 'utf8'))).toBe(true);
  });

  it('escapes text that carries XML characters', () => {
    // Policy names cannot hold these today; titles and notes are free text all the same.
    const odd = `a<b>&"c'`;
    const timeline = svgTimeline(
      odd,
      odd,
      [{ label: odd, kind: 'attempt', fromMs: 0, toMs: 10, wait: odd, via: odd }],
      10,
    );
    const topology = svgTopology(odd, odd, {
      nodes: [{ id: 'x', kind: 'main', type: odd, name: odd, note: odd, column: 0, row: 0 }],
      edges: [],
    });
    for (const svg of [timeline, topology]) {
      expect(XMLValidator.validate(svg)).toBe(true);
      expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&apos;');
    }
  });
});
