import { TARGETS, type TargetName } from '../policy/plan/targets';

/**
 * `--target` takes a target as the plan spells it or in lower case, so `servicebus` names
 * `serviceBus` and no one has to remember the capital.
 */
export const TARGET_SPELLINGS: Record<string, TargetName> = Object.fromEntries(
  TARGETS.flatMap((target) => [
    [target, target],
    [target.toLowerCase(), target],
  ]),
);

const lowerCase = TARGETS.map((target) => target.toLowerCase());

/** The targets as messages offer them: "rabbitmq, kafka or servicebus". */
export const TARGET_CHOICES = `${lowerCase.slice(0, -1).join(', ')} or ${lowerCase.at(-1)}`;
