/**
 * The parsed form of an expression: what the parser builds and the
 * compiler turns into a predicate. No I/O.
 *
 * @module
 */
import type { PathStep } from '../json/json-path.js';
import type { TextTest } from './regex.js';

/** A comparison of a number (`dur`, `bytes`, a path's value). */
export type NumberOperator = '<' | '>' | '<=' | '>=';

/** The atoms that take a glob or a word after their colon. */
export type AtomKey = 'method' | 'tool' | 'resource' | 'prompt' | 'node' | 'from' | 'is' | 'status';

/** A JSON literal an `==` / `!=` compares with. */
export type Literal = string | number | boolean | null;

/** What a `$` path is tested with. */
export type PathTest =
  | { op: '~'; regex: TextTest }
  | { op: '==' | '!='; literal: Literal }
  | { op: NumberOperator; number: number }
  | { op: 'exists' };

/** One node of the tree. */
export type Expr =
  | { kind: 'and' | 'or'; items: Expr[] }
  | { kind: 'not'; item: Expr }
  | { kind: 'atom'; key: AtomKey; value: string }
  | { kind: 'measure'; field: 'dur' | 'bytes'; op: NumberOperator; amount: number }
  | { kind: 'path'; path: string; steps: PathStep[]; test: PathTest }
  | { kind: 'text'; regex: TextTest };
