/** A small seeded PRNG (mulberry32), so a failing property run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split `data` at random points into chunks of 1..maxChunk bytes. */
export function randomChunks(data: Buffer, rand: () => number, maxChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const size = 1 + Math.floor(rand() * maxChunk);
    chunks.push(data.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const PIECES = [
  '"a"', '"é"', '"\\u00e9"', '"\\ud83d\\ude00"', '"😀 ünïcödé"', '1.0', '1e3', '-0', '1E-7', '12345678901234567890',
  'true', 'null', '[]', '{}', '"tab\\there"', '"quote\\"inside"', '"\\/"',
];

/**
 * One random line: mostly JSON-RPC with odd key order, escapes and number
 * spellings that a re-serialiser would change; sometimes invalid UTF-8 or
 * plain noise; terminated by `\n` or `\r\n`.
 */
export function randomLine(rand: () => number, id: number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const roll = rand();
  const end = rand() < 0.3 ? '\r\n' : '\n';
  if (roll < 0.1) {
    // Invalid UTF-8 inside a string: must survive untouched.
    return Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(`"}}${end}`),
    ]);
  }
  if (roll < 0.15) return Buffer.from(`debug: plain text line ${id} ünï${end}`);
  if (roll < 0.18) return Buffer.from(end);
  const keys = [
    `"id":${pick(['', ' '])}${id}`,
    `"jsonrpc":"2.0"`,
    `"method":"tools/call"`,
    `"params":{"name":${pick(PIECES.slice(0, 5))},"arguments":{"z":${pick(PIECES)},"a":[${pick(PIECES)}, ${pick(PIECES)}],"n":${pick(PIECES)}}}`,
  ];
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
  }
  const spaced = rand() < 0.3 ? ' ' : '';
  return Buffer.from(`{${spaced}${keys.join(`,${spaced}`)}${spaced}}${end}`);
}
