// The layers of src/ (docs/architecture.md), checked by `npm run lint`: data flows down, never up.
//
//   time ──┐
//   url ───┤
//   codec ─┼─▶ wire ─▶ store ─▶ client ─▶ server ─▶ cli
//   proto ─┤
//   lists ─┘
//
// time, url, codec, proto and lists are the ground floor (no I/O; time, the one clock every layer reads
// and sets its timers by; lists, the vocabulary of list names and kinds every layer speaks, takes only
// the types of proto's enums); wire speaks
// the REST surface both sides share; store keeps lists; the client uses all of them; the server reuses the
// client (a proxy is a client of its upstream); only the CLI may use everything. Each layer may use only
// the Node built-ins its work needs, so that the lower ones stay runnable outside Node.

const LAYERS = ['time', 'url', 'codec', 'proto', 'lists', 'wire', 'store', 'client', 'server', 'cli'];

/** What each layer may import of ours: itself and the layers below it. */
const ALLOWED = {
  time: ['time'],
  url: ['url'],
  codec: ['codec'],
  proto: ['proto'],
  lists: ['time', 'lists', 'proto'],
  wire: ['time', 'wire', 'lists', 'proto', 'codec', 'url'],
  store: ['time', 'store', 'lists', 'codec', 'url'],
  client: ['time', 'client', 'store', 'wire', 'lists', 'proto', 'codec', 'url'],
  server: ['time', 'server', 'client', 'store', 'wire', 'lists', 'proto', 'codec', 'url'],
  cli: LAYERS,
};

/** Node built-ins each layer may use; the server and the CLI may use any. */
const BUILT_INS = {
  time: [],
  url: ['crypto'],
  codec: [],
  proto: [],
  lists: [],
  wire: ['crypto'],
  store: ['crypto', 'fs', 'fs/promises', 'os', 'path'],
  client: ['fs/promises', 'http', 'https', 'stream', 'zlib'],
};

const layerRules = Object.entries(ALLOWED).map(([layer, allowed]) => ({
  name: `${layer}-imports-only-below`,
  comment: `src/${layer} may import only ${allowed.join(', ')}: layers never import upward`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${LAYERS.filter((other) => !allowed.includes(other)).join('|')})/` },
}));

const builtInRules = Object.entries(BUILT_INS).map(([layer, allowed]) => ({
  name: `${layer}-node-built-ins`,
  comment:
    allowed.length === 0 ? `src/${layer} uses no Node built-in` : `src/${layer} may use only these Node built-ins: ${allowed.join(', ')}`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { dependencyTypes: ['core'], ...(allowed.length === 0 ? {} : { pathNot: `^(node:)?(${allowed.join('|')})$` }) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycles: a room that needs its neighbour back shares something that belongs below both',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'root-files-stay-light',
      comment: 'src/version.ts reads the package version and nothing else',
      severity: 'error',
      from: { path: '^src/version\\.ts$' },
      to: { path: '^src/' },
    },
    ...layerRules.filter((rule) => rule.to.path !== '^src/()/'),
    {
      name: 'lists-takes-only-types-of-proto',
      comment: 'src/lists names enum numbers as types only: loading it must not load the protobuf runtime',
      severity: 'error',
      from: { path: '^src/lists/' },
      to: { path: '^src/proto/', dependencyTypesNot: ['type-only'] },
    },
    ...builtInRules,
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/proto/gen/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
