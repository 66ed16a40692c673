import type { RabbitHandler } from '../../runtime/rabbitmq';
import { body, http503, InvalidCurrencyError, waitFor } from '../integration/rabbitmq/support';

/** What the handler does with one delivery of a message. */
export type Outcome = 'ok' | '503' | 'InvalidCurrencyError';

export interface Delivery {
  id: string;
  attempt: number;
  /** ms since `Deliveries.start`. */
  at: number;
  outcome: Outcome;
}

/**
 * Every delivery a scripted handler saw, with its time. The script decides each outcome from the
 * message id (the JSON body's `id`) and the attempt, as the acceptance runs describe them.
 */
export class Deliveries {
  readonly log: Delivery[] = [];
  start = Date.now();

  constructor(private readonly script: (id: string, attempt: number) => Outcome) {}

  readonly handler: RabbitHandler = async (message, context) => {
    const { id } = body(message);
    const outcome = this.script(id, context.attempt);
    this.log.push({ id, attempt: context.attempt, at: Date.now() - this.start, outcome });
    if (outcome === 'InvalidCurrencyError') throw new InvalidCurrencyError('Unsupported currency XXX');
    if (outcome === '503') throw http503();
  };

  of(id: string): Delivery[] {
    return this.log.filter((entry) => entry.id === id);
  }

  /** The delivery of `id` at `attempt`, once it has happened. */
  waitFor(id: string, attempt: number, timeoutMs: number): Promise<Delivery> {
    return waitFor(
      () => this.log.find((entry) => entry.id === id && entry.attempt === attempt),
      timeoutMs,
      `${id} on attempt ${attempt}`,
    );
  }
}
