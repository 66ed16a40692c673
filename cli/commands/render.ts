import { parseArgs } from 'node:util';
import { sourceOf, targetTitle } from '../format/describe-plan';
import { EXIT, type Output } from '../output';
import { choosePlan } from '../render/choose';
import { mermaidTimeline, mermaidTopology } from '../render/mermaid';
import { svgTimeline } from '../render/svg-timeline';
import { svgTopology } from '../render/svg-topology';
import { timelineEndMs, timelineMarks } from '../render/timeline-model';
import { topologyOf } from '../render/topology-model';

export const RENDER_USAGE = `retry-topology render <file> --format mermaid|svg [--view timeline|topology] [--policy <name>] [--target rabbitmq|kafka|servicebus]

  Draws one policy on one target for a pull request or a doc page:
  --view timeline (default): every attempt on a time axis, jitter ranges as bands.
  --view topology: source → main queue or topic → wait levels → dead letter.
  The SVG is self-contained (no fonts, scripts or links to fetch), so GitHub shows it inline.
  Without --target the first target of the policy is drawn (stderr says which).`;

const FORMATS = ['mermaid', 'svg'] as const;
const VIEWS = ['timeline', 'topology'] as const;

export async function renderCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      view: { type: 'string', default: 'timeline' },
      policy: { type: 'string' },
      target: { type: 'string' },
    },
  });
  const format = FORMATS.find((name) => name === values.format);
  const view = VIEWS.find((name) => name === values.view);
  const [file] = positionals;
  if (positionals.length !== 1 || !file || !format || !view) {
    output.err(RENDER_USAGE);
    return EXIT.usage;
  }
  const chosen = await choosePlan(file, { policy: values.policy, target: values.target }, output);
  if (typeof chosen === 'number') return chosen;
  const { plan, target } = chosen;
  const rules = plan.targets[target];
  if (!rules) return EXIT.internal;
  const subtitle = targetTitle(plan, target);

  if (view === 'timeline') {
    const marks = timelineMarks(rules, sourceOf(plan, target));
    const endMs = timelineEndMs(marks);
    const title = `${plan.policy}: attempt timeline on ${target}`;
    output.out(
      format === 'mermaid'
        ? mermaidTimeline(title, marks, endMs)
        : svgTimeline(title, subtitle, marks, endMs),
    );
    return EXIT.ok;
  }
  const topology = topologyOf(plan, target);
  const title = `${plan.policy}: topology on ${target}`;
  output.out(
    format === 'mermaid' ? mermaidTopology(title, topology) : svgTopology(title, subtitle, topology),
  );
  return EXIT.ok;
}
