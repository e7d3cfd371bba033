// The house's size rules, checked: no source file over 400 lines and no
// function over 80 (the viewer's generated bundle is not under src/, so it is
// not counted). `node scripts/house-size.mjs [folder…]` prints each breach on
// a line of its own and exits 1 when there is one; test/house-rules runs it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The most lines a source file may have. */
export const MAX_FILE_LINES = 400;
/** The most lines a function (declaration, method, arrow or expression) may span. */
export const MAX_FUNCTION_LINES = 80;

const root = fileURLToPath(new URL('..', import.meta.url));

function* sourceFiles(path) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) yield* sourceFiles(join(path, entry));
  } else if (/\.tsx?$/.test(path) && !path.endsWith('.d.ts')) yield path;
}

function functionName(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** The breaches in one file, as lines of text. */
export function breachesIn(file) {
  const text = readFileSync(file, 'utf8');
  const rel = relative(root, file);
  const out = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) out.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const span = end - start + 1;
      if (span > MAX_FUNCTION_LINES) out.push(`${rel}:${start + 1}: function ${functionName(node, source)} spans ${span} lines (at most ${MAX_FUNCTION_LINES})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folders = process.argv.length > 2 ? process.argv.slice(2) : [join(root, 'src')];
  const breaches = folders.flatMap((folder) => [...sourceFiles(folder)].flatMap(breachesIn));
  for (const line of breaches) process.stdout.write(line + '\n');
  process.exit(breaches.length > 0 ? 1 : 0);
}
