import * as bytes from './bytes.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs per frame).
const { STACK_START, backslashesBefore, closingQuote, deeperStack } = bytes;

/**
 * Where a JSON text read in pieces stands: inside a string or not (and
 * whether the last piece ended on an escaping backslash), and the closers
 * of the brackets still open. The same rules as the one-pass scanners of
 * skip.ts, kept across piece boundaries; a streaming reader extends it and
 * reads its state as its own fields (no object between them on a per-byte
 * path).
 */
export class PieceScan {
  /** The closers of the open brackets, outermost first: grown by {@link PieceScan.open} as deep as the text nests. */
  protected stack = new Uint8Array(STACK_START);
  /** How many brackets are open. */
  protected depth = 0;
  /** The text is inside a string. */
  protected inString = false;
  /** The last piece ended inside a string on an odd run of backslashes: the next byte is escaped. */
  protected escaped = false;

  /** Not in a string, nothing open. */
  protected resetScan(): void {
    // A deep line's stack is not kept for the lines after it.
    if (this.stack.length > STACK_START) this.stack = new Uint8Array(STACK_START);
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
  }

  /** A bracket opens, whose closer is `closer`: pushed, the stack grown first if it is full. */
  protected open(closer: number): void {
    if (this.depth === this.stack.length) this.stack = deeperStack(this.stack);
    this.stack[this.depth++] = closer;
  }

  /**
   * Inside a string from `i`: the index of its closing quote in this piece
   * (and the string is over), or -1 if it goes on past the piece.
   */
  protected stringEnd(buf: Buffer, i: number, end: number): number {
    let at = i;
    if (this.escaped) {
      this.escaped = false;
      at++;
    }
    const quote = closingQuote(buf, at, end);
    if (quote === -1) {
      this.escaped = (backslashesBefore(buf, end, at) & 1) === 1;
      return -1;
    }
    this.inString = false;
    return quote;
  }
}
