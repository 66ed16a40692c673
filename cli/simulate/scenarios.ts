import type { ClassificationPlan, DeliveryRules, RangeMs } from '../../policy';
import type { TargetRules } from '../../runtime';

/**
 * The jitter variants a simulation compares, all with the same delays. A level's delay is its
 * range's upper end: what jitter "none" waits, and the ceiling full jitter draws below.
 * - planned: the target's own ranges, exactly as the runtime draws them.
 * - none: every range pinned to its ceiling.
 * - full: every range widened to [0, ceiling]; a what-if, shown only when the plan itself has no
 *   spread (jitter none, or a target that cannot apply it).
 */

export type ScenarioName = 'planned' | 'none' | 'full';

export interface Scenario {
  name: ScenarioName;
  label: string;
  jittered: boolean;
  rules: TargetRules;
}

const pinned = (range: RangeMs): RangeMs => ({ min: range.max, max: range.max });
const full = (range: RangeMs): RangeMs => ({ min: 0, max: range.max });

function reshape(
  rules: DeliveryRules,
  classification: ClassificationPlan,
  shape: (range: RangeMs) => RangeMs,
) {
  return {
    ...rules,
    classification,
    immediate: { ...rules.immediate, waitMs: shape(rules.immediate.waitMs) },
    levels: rules.levels.map((level) => ({ ...level, waitMs: shape(level.waitMs) })),
  };
}

function hasSpread(rules: DeliveryRules): boolean {
  // The in-memory range counts only when there are in-memory retries to draw it for.
  const ranges = [
    ...(rules.immediate.retries > 0 ? [rules.immediate.waitMs] : []),
    ...rules.levels.map((level) => level.waitMs),
  ];
  return ranges.some((range) => range.max > range.min);
}

export function scenarios(rules: DeliveryRules, classification: ClassificationPlan): Scenario[] {
  const planned = hasSpread(rules);
  const applied = rules.jitterApplied ? rules.jitter : 'none';
  const out: Scenario[] = [
    {
      name: 'planned',
      label: `as planned (jitter ${applied}${rules.jitterApplied || rules.jitter === 'none' ? '' : `: "${rules.jitter}" cannot apply on this target`})`,
      jittered: planned,
      rules: { ...rules, classification },
    },
  ];
  if (planned)
    out.push({
      name: 'none',
      label: 'without jitter',
      jittered: false,
      rules: reshape(rules, classification, pinned),
    });
  else
    out.push({
      name: 'full',
      label: `what if full jitter${rules.jitterApplied ? '' : ' (this target cannot apply it)'}`,
      jittered: true,
      rules: reshape(rules, classification, full),
    });
  return out;
}
