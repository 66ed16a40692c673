/**
 * Headers the broker (or one of its plugins) writes on a delivery, as opposed to the
 * application's. A copy the runtime republishes leaves these behind: they describe this
 * delivery's path through the broker, not the message, and some would act again on the copy.
 * Every other header is the application's and is kept, `x-` or not (`x-request-id`,
 * `x-correlation-id`, `x-tenant`, `traceparent` …).
 *
 * From rabbitmq-server's source, 3.10.8 to 4.3.5:
 * - `x-death`, `x-first-death-*` (3.x) and `x-last-death-*` (3.13+): dead-lettering history. A
 *   copy keeps none, so the broker's next dead-lettering starts a fresh history, and 4.x ignores a
 *   republished `x-death` anyway.
 * - `x-delivery-count` (quorum queues) and `x-acquired-count` (4.x quorum queues): per-delivery
 *   counters the broker sets itself.
 * - `x-stream-offset`: a stream delivery's offset.
 * - `x-opt-*`: AMQP 1.0 message annotations surfaced as headers on 4.x. The broker acts on
 *   some (`x-opt-delivery-time`, `x-opt-deferral-token`) and stamps others (`x-opt-deaths`,
 *   shovel annotations); a stale delivery time on a copy would be wrong.
 * - `x-basic-*`, `x-routing-key`, `x-exchange`: 4.x internal conversion headers (mc_amqpl).
 * - `x-received-from` (federation), `x-shovelled`, `x-shovelled-timestamp` (shovel, 3.x).
 * - `x-message-id` and `x-correlation-id` are not on the list: 4.x writes them for an AMQP 1.0
 *   message's non-string ids, and the copy needs them to keep those ids; otherwise they are the
 *   application's.
 * - `CC` and `BCC`: sender-selected routing keys of the original publish. A copy is routed by the
 *   runtime alone; a kept CC would send it to more queues. (The broker drops CC itself when it
 *   dead-letters with a routing key, rabbit_dead_letter on 3.10.8.)
 */
const EXACT = new Set([
  'x-death',
  'x-delivery-count',
  'x-acquired-count',
  'x-stream-offset',
  'x-routing-key',
  'x-exchange',
  'x-received-from',
  'x-shovelled',
  'x-shovelled-timestamp',
  'CC',
  'BCC',
]);
const PREFIXES = ['x-first-death-', 'x-last-death-', 'x-opt-', 'x-basic-'];

export function isBrokerHeader(name: string): boolean {
  if (EXACT.has(name)) return true;
  if (!name.startsWith('x-')) return false;
  for (const prefix of PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
}
