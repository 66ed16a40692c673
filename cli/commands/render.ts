import { oneOf, parseCommandArgs, positionalCount, UsageError } from '../args';
import { sourceOf, targetTitle } from '../format/describe-plan';
import { type CommandHelp, EXIT_BUG, EXIT_POLICY_ERRORS } from '../help';
import { loadInputs } from '../load-inputs';
import { EXIT, type Output } from '../output';
import { mermaidTimeline, mermaidTopology } from '../render/mermaid';
import { svgTimeline } from '../render/svg-timeline';
import { svgTopology } from '../render/svg-topology';
import { timelineEndMs, timelineMarks } from '../render/timeline-model';
import { topologyOf } from '../render/topology-model';
import { chooseOne, targetOption } from '../select';

export const RENDER_HELP: CommandHelp = {
  usage: `retry-topology render <file|dir|glob|-> --format mermaid|svg [--view timeline|topology] [--policy <name>] [--target rabbitmq|kafka|servicebus]

  Draws one policy on one target for a pull request or a doc page:
  --view timeline (default): every attempt on a time axis, jitter ranges as bands.
  --view topology: source → main queue or topic → wait levels → dead letter.
  The SVG is self-contained (no fonts, scripts or links to fetch), so GitHub shows it inline.
  Without --target the first target of the policy is drawn (stderr says which).`,
  exits: [
    [EXIT.ok, 'the drawing is printed'],
    EXIT_POLICY_ERRORS,
    [
      EXIT.usage,
      'the command line is wrong, the input holds several policies and no --policy picks one, or the policy lacks the --target',
    ],
    EXIT_BUG,
  ],
};

const FORMATS = ['mermaid', 'svg'] as const;
const VIEWS = ['timeline', 'topology'] as const;

export async function renderCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    format: { type: 'string' },
    view: { type: 'string', default: 'timeline' },
    policy: { type: 'string' },
    target: { type: 'string' },
  });
  if (values.format === undefined) throw new UsageError(`--format is needed: ${FORMATS.join(' or ')}`);
  const format = oneOf('format', values.format, FORMATS);
  const view = oneOf('view', values.view, VIEWS);
  const [file = ''] = positionalCount(positionals, 1, 1, 'policy file, directory, glob or -');
  const target = targetOption(values.target);
  const loaded = await loadInputs(positionals, output);
  const chosen = chooseOne(loaded, file, { policy: values.policy, target }, output);
  if (typeof chosen === 'number') return chosen;
  const { plan } = chosen;
  const rules = plan.targets[chosen.target];
  if (!rules) return EXIT.internal;
  const subtitle = targetTitle(plan, chosen.target);

  if (view === 'timeline') {
    const marks = timelineMarks(rules, sourceOf(plan, chosen.target));
    const endMs = timelineEndMs(marks);
    const title = `${plan.policy}: attempt timeline on ${chosen.target}`;
    output.out(
      format === 'mermaid'
        ? mermaidTimeline(title, marks, endMs)
        : svgTimeline(title, subtitle, marks, endMs),
    );
    return EXIT.ok;
  }
  const topology = topologyOf(plan, chosen.target);
  const title = `${plan.policy}: topology on ${chosen.target}`;
  output.out(
    format === 'mermaid' ? mermaidTopology(title, topology) : svgTopology(title, subtitle, topology),
  );
  return EXIT.ok;
}
