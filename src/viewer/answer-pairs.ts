// Which answers of a call the page sets side by side: the server's own
// answer beside what the host got, when the debugger replaced it (an inject
// or an abort at the after or error gate); and for a call sent again
// (Retry), each answer beside the next one. Pure (no DOM): read from the
// run model's `changed` and `attempts` alone, tested as a playbook.
import type { Instance, InstanceError } from '../protocol/run-model.js';
import { changeText } from '../protocol/call-times.js';
import { ordinal } from './format.js';

/** One side of a pair: a title, how that answer ended, and the value shown. */
export interface AnswerSide {
  /** What this side is, in words: `the server's answer`, `what the host got (injected by viewer)`, `2nd answer`. */
  title: string;
  /** How that answer ended the call. */
  status: 'ok' | 'error';
  /** The value the diff shows (see {@link answerValue}). */
  value: unknown;
}

/** Two answers of one call, side by side. */
export interface AnswerPair {
  /** `server` (the server's answer vs what the host got) or `attempt-N` (answer N vs answer N+1). */
  key: string;
  /** The pair's heading. */
  caption: string;
  left: AnswerSide;
  right: AnswerSide;
}

/** An answer as the run model keeps it (the call itself, an attempt, the server's replaced one). */
interface Answer {
  status: string;
  output?: unknown;
  error?: InstanceError;
}

/**
 * What a diff shows of an answer: its output (a tool result, even one with
 * `isError`), else its error (a JSON-RPC error, an abort) under `error`.
 */
export function answerValue(answer: Answer): unknown {
  if (answer.output !== undefined) return answer.output;
  if (answer.error !== undefined) return { error: answer.error };
  return undefined;
}

/** `injected by viewer`: who changed the call and how, without the note on what it replaced (the pair says that). */
export function changeWords(instance: Instance): string | undefined {
  return changeText(instance)?.replace(/ \(.*\)$/, '');
}

function side(title: string, answer: Answer): AnswerSide {
  return { title, status: answer.status === 'error' ? 'error' : 'ok', value: answerValue(answer) };
}

/** The pairs `instance` has to show (none for a call the debugger left alone, or with nothing to compare). */
export function answerPairs(instance: Instance): AnswerPair[] {
  const pairs: AnswerPair[] = [];
  const server = instance.changed?.server;
  const ended = instance.endedAt !== null && instance.status !== 'open';
  if (server !== undefined && ended) {
    const how = changeWords(instance) ?? 'changed by the debugger';
    pairs.push({ key: 'server', caption: `The server's answer and what the host got: ${how}`, left: side("the server's answer (the host never got it)", server), right: side(`what the host got (${how})`, instance) });
  }
  const attempts = instance.attempts ?? [];
  attempts.forEach((attempt, i) => {
    const next = attempts[i + 1];
    if (next === undefined && !ended) return;
    const last = next === undefined;
    pairs.push({
      key: `attempt-${i + 1}`,
      caption: `Retry: the ${ordinal(i + 1)} answer and the ${ordinal(i + 2)}`,
      left: side(`${ordinal(i + 1)} answer (dropped, the request sent again)`, attempt),
      right: side(last ? `${ordinal(i + 2)} answer (what the host got)` : `${ordinal(i + 2)} answer (dropped too)`, next ?? instance),
    });
  });
  return pairs;
}
