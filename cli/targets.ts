import { TARGETS, type TargetName } from '../policy/plan/targets';

/**
 * The target a `--target` value names: as the plan spells it or in lower case, so `servicebus`
 * names `serviceBus` and no one has to remember the capital. A search of the list, not a lookup in
 * an object, so `toString` or `constructor` is an unknown target like any other word.
 */
export function targetNamed(text: string): TargetName | undefined {
  return TARGETS.find((target) => text === target || text === target.toLowerCase());
}

const lowerCase = TARGETS.map((target) => target.toLowerCase());

/** The targets as messages offer them: "rabbitmq, kafka or servicebus". */
export const TARGET_CHOICES = `${lowerCase.slice(0, -1).join(', ')} or ${lowerCase.at(-1)}`;
