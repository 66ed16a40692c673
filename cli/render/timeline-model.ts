import type { DeliveryRules } from '../../policy';
import { range } from '../format/describe-plan';

/**
 * The attempt timeline as marks on a time axis, shared by the Mermaid and SVG renderers. Each
 * attempt is a band from the earliest to the latest moment it can happen after the first
 * delivery: the plan's jitter ranges (and in-memory retries) add up into that band. A band whose
 * ends meet is a point: no jitter.
 */

export interface TimelineMark {
  /** "attempt 2", or "dead letter". */
  label: string;
  kind: 'attempt' | 'dead-letter';
  fromMs: number;
  toMs: number;
  /** The wait before this mark, as text ("1s", "0s–1s"); "" for attempt 1. */
  wait: string;
  /** Where the message waited before this mark, or where it goes. */
  via: string;
}

export function timelineMarks(rules: DeliveryRules, source: string): TimelineMark[] {
  const marks: TimelineMark[] = rules.stages.map((stage) => ({
    label: `attempt ${stage.attempt}`,
    kind: 'attempt',
    fromMs: stage.windowMs.min,
    toMs: stage.windowMs.max,
    wait: stage.attempt === 1 ? '' : range(stage.waitMs),
    via: stage.attempt === 1 ? source : stage.via,
  }));
  marks.push({
    label: 'dead letter',
    kind: 'dead-letter',
    fromMs: rules.retryWindowMs.min,
    toMs: rules.retryWindowMs.max,
    wait: '',
    via: rules.deadLetter,
  });
  return marks;
}

/** The last moment on the axis: the latest dead-lettering, never zero so scales divide. */
export function timelineEndMs(marks: readonly TimelineMark[]): number {
  return Math.max(1, ...marks.map((mark) => mark.toMs));
}
