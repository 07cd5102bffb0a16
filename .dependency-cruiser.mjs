// The import graph redline keeps: folders of src/ in layers, each importing only folders below it, so the
// folder graph cannot have a cycle; drivers and optional peers only in the folder that adapts them.
// docs/architecture.md draws the same layers (test/api/docs.test.ts compares them). Checked by `npm run lint:imports` (part of `npm test`).

/** Lowest first: a folder may import only the folders before it in this list (and itself). */
const LAYERS = [
  'core', // shared vocabulary: outcomes, candidate, finding, check, brief, acceptance, canonical JSON, hash chain
  'errors',
  'limits', // rate limits of model endpoints: token buckets, the limiter port, the in-memory store
  'telemetry', // the OpenTelemetry adapter: spans the loop writes to, no-ops without a tracer
  'process',
  'metering', // the metering endpoint an agent's model calls go through: usage, prices, spend budgets
  'workspace',
  'db', // SQLite and PostgreSQL plumbing shared by the ledger and the review queue
  'guards',
  'mission',
  'checks',
  'proposers',
  'state', // the bounded working state and its pure step: summaries, signatures, progress (the loop and the AI SDK adapter)
  'review',
  'handoff',
  'ledger',
  'judge',
  'run', // what every recorded run shares, whichever loop drives it: the recorder, judge asking, endings, the seal, its spans
  'ai-sdk',
  'roles', // the roles a mission file names, built from its specs: checks, proposer, judge
  'analysis', // on top of the ledger: replay, stop quality, admission
  'review-app', // the reviewer web app: server-rendered pages over the review queue and the ledger
  'loop',
  'mcp', // the MCP server: the loop's red lines as tools for an agent (the only importer of @modelcontextprotocol/sdk)
  'worker', // many machines: submissions, workspace blobs, the pg-boss job queue, leases
  'testing',
  'study',
  'init', // `redline init`: a repository's test runners, the scope its layout gives, the mission text
  'cli',
];

/** Packages only one folder may import: drivers, optional peers, the CLI parser. */
const ADAPTERS = [
  { packages: ['better-sqlite3', 'pg'], folder: 'db' },
  { packages: ['ai', '@ai-sdk/[^/]+'], folder: 'ai-sdk' },
  { packages: ['vega'], folder: 'study' },
  { packages: ['@opentelemetry/api'], folder: 'telemetry' },
  { packages: ['commander'], folder: 'cli' },
  { packages: ['hono', '@hono/node-server'], folder: 'review-app' },
  { packages: ['@modelcontextprotocol/sdk'], folder: 'mcp' },
  { packages: ['pg-boss'], folder: 'worker' },
];

const folders = (names) => `^src/(${names.join('|')})/`;

export default {
  forbidden: [
    ...LAYERS.map((layer, index) => ({
      name: `layer-${layer}`,
      comment: `src/${layer}/ may import only ${index === 0 ? 'nothing of redline' : `src/{${LAYERS.slice(0, index).join(',')}}/`}`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: index === 0 ? '^src/' : folders(LAYERS.slice(index + 1)), pathNot: `^src/${layer}/` },
    })),
    {
      name: 'core-imports-no-package',
      comment: 'src/core/ is vocabulary: node built-ins only',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    ...ADAPTERS.map(({ packages, folder }) => ({
      name: `only-${folder}-imports-${packages[0]}`,
      comment: `${packages.join(', ')} only in src/${folder}/`,
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/${folder}/` },
      to: { path: `^node_modules/(${packages.join('|')})/` },
    })),
    {
      name: 'no-circular',
      comment: 'no module imports itself through others at run time (type-only imports are erased)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-review',
      comment: 'src/review/ has no cycle even through type-only imports: its nouns are a leaf (types.ts), each port imports down to them',
      severity: 'error',
      from: { path: '^src/review/' },
      to: { circular: true },
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
