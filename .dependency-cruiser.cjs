// The house's import rules, checked by dependency-cruiser
// (`npm run depcruise`, run by test/house-rules.test.ts):
//
// - no import cycle, type-only imports included (tsPreCompilationDeps);
// - imports only go down the layers below, bottom to top; folders on one
//   line are siblings and must not import each other;
// - the viewer (a page bundled on its own) imports only the protocol types,
//   the condition language and its own folder;
// - src/index.ts, the package's entry, may import anything; nothing
//   imports it, nor the viewer;
// - every folder of src/ has a place in the layers.
//
// A new folder gets a line in LAYERS; a rule that seems to be in the way is
// usually a file in the wrong folder.

/** Bottom to top. */
const LAYERS = [
  ['json'], // JSON helpers: no imports of ours
  ['conditions', 'cost'], // the condition language (find, rules, where); what a definition or a result costs a model
  ['protocol'], // the protocol types and their checks: the run model, ingest, control, live feed
  ['gates', 'surface'], // the decision core; a server's tool surface, its snapshot and its changes
  ['streams'], // the relay stages
  ['report'], // the reporter client, the replay of events into a run
  ['relay'], // holds over frames, the recorder of a framed session
  ['proxy', 'http-proxy', 'adapter'], // the three integrations: siblings
  ['export'], // the formats: the run log (JSONL), HAR, OTLP; import and export of a run
  ['replay'], // a recorded run served again, and the matching verify shares
  ['testing', 'check'], // graphmind-ai/test: replay and verify for a test runner; graphmind check
  ['client'], // the loopback client of a running debugger's API
  ['server'], // graphmind serve
  ['mcp'], // graphmind mcp
  ['cli'], // the commands
];

const folders = (names) => `^src/(${names.join('|')})/`;

const layerRules = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  const rules = [];
  for (const folder of layer) {
    const higher = [...above, ...layer.filter((other) => other !== folder), 'viewer'];
    rules.push({
      name: `layer-${folder}`,
      comment: `${folder}/ may import only the layers below it (${LAYERS.slice(0, index).flat().join(', ') || 'none of ours'}) and its own folder`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: { path: folders(higher) },
    });
  }
  return rules;
});

const known = [...LAYERS.flat(), 'viewer'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle of imports (type-only ones too): one of them goes the wrong way.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'viewer-imports-protocol-only',
      comment: 'The viewer is bundled for the browser and speaks only the documented API: it imports the protocol types, the condition language and its own folder.',
      severity: 'error',
      from: { path: '^src/viewer/' },
      to: { path: '^src/', pathNot: '^src/(viewer|protocol|conditions)/' },
    },
    {
      name: 'nothing-imports-the-entry',
      comment: 'src/index.ts is the package entry, on top of everything: nothing of ours imports it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'every-folder-in-a-layer',
      comment: 'A folder of src/ that has no place in the layers of .dependency-cruiser.cjs: give it one.',
      severity: 'error',
      from: { path: '^src/', pathNot: [`^src/(${known.join('|')})/`, '^src/index\\.ts$'] },
      to: {},
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
