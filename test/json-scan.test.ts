// Playbooks of the shared JSON byte rules (src/json/): each row is an input
// and what the rule says about it. The scanners built on them (the relay's
// envelope and skeleton, the ingest reader, the strict check) have their
// own tests; these pin the rules they share.
import t from 'tap';
import { backslashesBefore, closingQuote, literalEnd, skipSpace } from '../src/json/bytes.js';
import { PieceScan } from '../src/json/piece-scan.js';
import { plainIntegerEnd, plainStringEnd, valueAt } from '../src/json/read-value.js';
import { isScalarText, skipValue } from '../src/json/skip.js';

const b = (text: string): Buffer => Buffer.from(text, 'latin1');

t.test('a quote closes a string unless an odd run of backslashes comes before it', async (t) => {
  // [string text after its opening quote, index of the closing quote or -1]
  const table: Array<[string, number]> = [
    ['abc"', 3],
    ['"', 0],
    ['a\\"b"', 4],
    ['a\\\\"b"', 3],
    ['a\\\\\\"b"', 6],
    ['\\\\\\\\"', 4],
    ['no quote', -1],
    ['only escaped \\"', -1],
    ['', -1],
  ];
  for (const [text, expected] of table) t.equal(closingQuote(b(text), 0, text.length), expected, JSON.stringify(text));
  t.equal(closingQuote(b('ab"cd"'), 0, 2), -1, 'a quote at or past the end is not seen');
  t.equal(backslashesBefore(b('x\\\\\\y'), 4, 0), 3, 'three before the y');
  t.equal(backslashesBefore(b('x\\\\\\y'), 4, 2), 2, 'but none counted before the floor');
});

/** A PieceScan whose string state a test can drive. */
class Probe extends PieceScan {
  /** Where the string's closing quote is in each piece (-1: not in it), reading from the start of each. */
  ends(pieces: string[]): number[] {
    this.resetScan();
    this.inString = true;
    return pieces.map((piece) => this.stringEnd(b(piece), 0, piece.length));
  }
}

t.test('a string read in pieces ends where it would in one piece, whatever the cuts', async (t) => {
  // [pieces, closing quote per piece]
  const table: Array<[string[], number[]]> = [
    [['ab', 'c"'], [-1, 1]],
    [['ab\\', '"c"'], [-1, 2]],
    [['ab\\\\', '"c"'], [-1, 0]],
    [['\\', '\\', '"'], [-1, -1, 0]],
    [['\\', '"', '"'], [-1, -1, 0]],
    [['x\\\\\\', '""'], [-1, 1]],
  ];
  const probe = new Probe();
  for (const [pieces, expected] of table) t.same(probe.ends(pieces), expected, JSON.stringify(pieces));
  // Every cut of one string agrees with the one-piece answer.
  const whole = 'a\\\\b\\"c\\\\\\"d\\\\"tail';
  const end = closingQuote(b(whole), 0, whole.length);
  for (let cut = 0; cut <= whole.length; cut++) {
    const [first, second] = probe.ends([whole.slice(0, cut), whole.slice(cut)]) as [number, number];
    t.equal(first !== -1 ? first : cut + second, end, `cut at ${cut}`);
  }
});

t.test('whitespace, literals and scalars', async (t) => {
  t.equal(skipSpace(b(' \t\r\nx'), 0, 5), 4);
  t.equal(skipSpace(b('   '), 0, 2), 2, 'stops at the end given');
  const literals: Array<[string, number]> = [
    ['true', 4],
    ['false,', 5],
    ['null}', 4],
    ['nul', -1],
    ['tru', -1],
    ['x', -1],
  ];
  for (const [text, expected] of literals) t.equal(literalEnd(b(text), 0, text.length), expected, text);
  const scalars: Array<[string, boolean]> = [
    ['true', true],
    ['-1.5e+3', true],
    ['', false],
    ['tru', false],
    ['1x', false],
  ];
  for (const [text, expected] of scalars) t.equal(isScalarText(text), expected, `scalar ${JSON.stringify(text)}`);
  const values: Array<[string, number]> = [
    ['"a\\"b",', 6],
    ['{"a":[1,{"b":"]"}]} ', 19],
    ['[1,2}', -1],
    ['12e3,', 4],
    ['nope', -1],
  ];
  for (const [text, expected] of values) t.equal(skipValue(b(text), 0, text.length), expected, `value ${text}`);
});

t.test('plain values read from their bytes', async (t) => {
  // [text, end of a plain integer at 0]
  const integers: Array<[string, number]> = [
    ['0', 1],
    ['7,', 1],
    ['123456789012345}', 15],
    ['1234567890123456', -1],
    ['01', -1],
    ['-1', -1],
    ['', -1],
    ['x', -1],
  ];
  for (const [text, expected] of integers) t.equal(plainIntegerEnd(b(text), 0, text.length), expected, `integer ${JSON.stringify(text)}`);
  // [text after the opening quote, its closing quote or -1]
  const strings: Array<[string, number]> = [
    ['abc"', 3],
    ['a\\"b"', -1],
    ['\u00e9"', -1],
    ['tab\t"', -1],
    ['open', -1],
  ];
  for (const [text, expected] of strings) t.equal(plainStringEnd(b(text), 0, text.length), expected, `string ${JSON.stringify(text)}`);
  // [JSON value, what valueAt reads]
  const read: Array<[string, unknown]> = [
    ['"id-1"', 'id-1'],
    ['"a\\nb"', 'a\nb'],
    ['42', 42],
    ['-7', -7],
    ['-0', -0],
    ['1.5', 1.5],
    ['-', undefined],
    ['123456789012345678', 123456789012345678],
    ['{"a":1}', { a: 1 }],
  ];
  for (const [text, expected] of read) t.same(valueAt(Buffer.from(text), 0, text.length), expected, `valueAt ${text}`);
  t.ok(Object.is(valueAt(Buffer.from('-0'), 0, 2), -0), '-0 stays negative zero');
});
