import type { DeadLetterReason } from '../decide';
import type { ServiceBusRetryError } from './errors';

/**
 * What the wrapper did with one message, and so what the broker does with it next.
 *
 * | kind          | broker calls                               | the message                                  |
 * | completed     | completeMessage                            | gone: the handler succeeded                  |
 * | scheduled     | scheduleMessages(copy), completeMessage    | the copy arrives at `scheduledFor`           |
 * | dead-lettered | deadLetterMessage(reason, description)     | in the entity's dead-letter subqueue         |
 * | abandoned     | abandonMessage (consumer stopping only)    | available again at once, deliveryCount + 1   |
 * | kept          | none: the copy was refused                 | back when its lock expires, deliveryCount + 1 |
 *
 * `settleError` means the last call failed: the original comes back when its lock expires (for
 * `scheduled`, next to its copy: a duplicate, never a loss), and maxDeliveryCount still applies.
 */
export type ServiceBusOutcome = (
  | { kind: 'completed' }
  | {
      kind: 'scheduled';
      level: number;
      delayMs: number;
      nextAttempt: number;
      destination: string;
      scheduledFor: Date;
    }
  | { kind: 'dead-lettered'; reason: DeadLetterReason; because: string }
  | { kind: 'abandoned' }
  | { kind: 'kept'; error: ServiceBusRetryError }
) & {
  attempt: number;
  handlerCalls: number;
  settleError?: ServiceBusRetryError;
};
