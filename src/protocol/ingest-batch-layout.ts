/**
 * The byte layout of an ingest batch as the bundled reporter writes it
 * (report/encode-batch.ts) and the server reads it without parsing
 * (server/batch-reader.ts): both build their bytes and checks from what is
 * here, so the two cannot drift apart. It is an optimisation, not the
 * protocol: a batch is any JSON array of events (and groups), and the
 * server parses in full whatever is not laid out this way.
 *
 * The frame of a batch: {@link BATCH_OPEN}, its elements separated by
 * {@link BATCH_SEPARATOR}, {@link BATCH_CLOSE}; no whitespace anywhere.
 *
 * An execution event (the two a call usually makes) is written from a
 * template: its head ({@link executionHead}: type, then the `instanceId`
 * key) and the instance id as a JSON string, then each further field as
 * its key with the comma before it (the `…_KEY` constants) and its value,
 * in this order, a field whose value is undefined left out:
 *
 * - `instance.started`: node, input, requestId, runId, seq, t
 * - `instance.completed`: node, input, output, endT, requestId, runId, seq, t
 * - `instance.finished`: output, runId, seq, t
 * - `instance.error`: output, error, runId, seq, t (written field by field
 *   in the order the event is built with, which is this one)
 *
 * A group of completed calls (report/completed-group.ts): {@link GROUP_HEAD},
 * the node's JSON, {@link RUN_ID_KEY} and the run id, {@link SEQ_KEY} and
 * the first seq, {@link CALLS_KEY}, the calls separated by
 * {@link CALL_SEPARATOR}, then {@link CALLS_CLOSE} and {@link GROUP_CLOSE}.
 * A call is {@link CALL_OPEN}, `instanceId`, `t`, `endT`, `input`, `output`
 * and, when the call has one, its `requestId`, separated by
 * {@link CALL_SEPARATOR}, then {@link CALL_CLOSE}. A call without a request
 * id has five slots, never a `null` sixth, so a group written before the
 * id was recorded reads as it always did.
 *
 * A whole run of one call (report/completed-run.ts, an in-process
 * adapter's request): {@link RUN_COMPLETED_HEAD}, then {@link RUN_ID_KEY}
 * and the run id, {@link SEQ_KEY}, {@link T_KEY}, {@link END_T_KEY},
 * {@link NAME_KEY}, {@link SOURCE_KEY}, {@link META_KEY} and the meta
 * object, {@link ROOT_KEY} and the root (itself {@link ROOT_HEAD}, the root
 * instance's id, `,"node":`, the node, and `,"input":` and its value if it
 * has one, then `}`), then `instanceId`, `node`, `input`, `requestId`,
 * `output` and `error` as an execution event has them (an undefined one
 * left out), then `}`.
 *
 * A `requestId` (the JSON-RPC id of the request a call answers, as the
 * wire had it) is a JSON string or a number; the reader's fast path takes
 * a string without escapes and an integer of up to 15 digits, and leaves
 * any other to the plain path.
 *
 * The buffers here are shared: they are copied from, never written to.
 *
 * @module
 */

/** The `type` of a group of completed calls (see report/completed-group.ts). */
export const COMPLETED_GROUP = 'instances.completed';

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

/** `[`: a batch opens. */
export const BATCH_OPEN = 0x5b;
/** `,`: between two elements of a batch. */
export const BATCH_SEPARATOR = 0x2c;
/** `]`: a batch closes. */
export const BATCH_CLOSE = 0x5d;

/** `{"type":"<type>","instanceId":`: how an execution event of `type` starts (its id, a JSON string, follows). */
export function executionHead(type: string): Buffer {
  return latin1(`{"type":${JSON.stringify(type)},"instanceId":`);
}

/** The head of `instance.started`. */
export const STARTED_HEAD = executionHead('instance.started');
/** The head of `instance.completed`. */
export const COMPLETED_HEAD = executionHead('instance.completed');
/** The head of `instance.finished`. */
export const FINISHED_HEAD = executionHead('instance.finished');
/** The head of `instance.error`. */
export const ERROR_HEAD = executionHead('instance.error');
/** Where the heads first differ: the letter after `instance.` (`s`, `c`, `f` or `e`). */
export const TYPE_LETTER_AT = '{"type":"instance.'.length;

/** `,"instanceId":`: what every head ends with. */
export const INSTANCE_ID_KEY = latin1(',"instanceId":');
/** `,"node":` */
export const NODE_KEY = latin1(',"node":');
/** `,"input":` */
export const INPUT_KEY = latin1(',"input":');
/** `,"output":` */
export const OUTPUT_KEY = latin1(',"output":');
/** `,"error":` */
export const ERROR_KEY = latin1(',"error":');
/** `,"requestId":` */
export const REQUEST_ID_KEY = latin1(',"requestId":');
/** `,"endT":` */
export const END_T_KEY = latin1(',"endT":');
/** `,"runId":` */
export const RUN_ID_KEY = latin1(',"runId":');
/** `,"seq":` */
export const SEQ_KEY = latin1(',"seq":');
/** `,"t":` */
export const T_KEY = latin1(',"t":');

/** `{"type":"instances.completed","node":`: how a group of calls starts (the node's JSON follows). */
export const GROUP_HEAD = latin1(`{"type":${JSON.stringify(COMPLETED_GROUP)},"node":`);
/** `{"type":"run.completed"`: how a whole run of one call starts (`,"runId":` follows). */
export const RUN_COMPLETED_HEAD = latin1('{"type":"run.completed"');
/** `,"name":` */
export const NAME_KEY = latin1(',"name":');
/** `,"source":` */
export const SOURCE_KEY = latin1(',"source":');
/** `,"meta":` */
export const META_KEY = latin1(',"meta":');
/** `,"root":` */
export const ROOT_KEY = latin1(',"root":');
/** `{"instanceId":`: how a completed run's root starts (its instance id, a JSON string, follows). */
export const ROOT_HEAD = latin1('{"instanceId":');

/** `,"calls":[`: after the group's first seq, before its first call. */
export const CALLS_KEY = latin1(',"calls":[');
/** `[`: a call of a group opens. */
export const CALL_OPEN = 0x5b;
/** `,`: between the fields of a call, and between two calls. */
export const CALL_SEPARATOR = 0x2c;
/** `]`: a call closes. */
export const CALL_CLOSE = 0x5d;
/** `]`: after the last call, the list of calls closes. */
export const CALLS_CLOSE = 0x5d;
/** `}`: then the group closes. */
export const GROUP_CLOSE = 0x7d;
