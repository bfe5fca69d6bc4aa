/**
 * The import direction of gym-bridge, written down once and enforced by dependency-cruiser
 * (`npm run lint:imports`, part of `npm test`). docs/architecture.md explains it in words; this file
 * is the rule.
 *
 * PARTS are the folders: the boxes of the design's drawing of the house (../shared/house.json),
 * every one of them. MAY is an allow-list: a part imports itself and the parts listed, nothing else
 * in the tree (lambdas/, cli/, sandbox/, local-aws/, event-tooling/, lib/, bin/, bench/); its arrows are the drawing's arrows, each one an import the
 * code makes. NEVER gives the reasons of the arrows the drawing forbids outright. A wrong-way import
 * fails with its rule's name and reason, whether or not anyone wrote a rule for that pair: an arrow
 * missing from MAY fails as `<part>-may-import-only`.
 *
 * Reading a failure: `error never-common-to-engine: lambdas/common/x.ts → lambdas/engine/y.ts`, then
 * the reason. Move the code down (or the type: a structural type in the lower part), invert the
 * dependency, or, if the arrow is right, add it to MAY here (and to the drawing).
 */

/** @type {Record<string, { readonly paths: readonly string[]; readonly says: string }>} */
const PARTS = {
  Common: { paths: ['lambdas/common/'], says: 'logger, zones, names: depends on nothing' },
  GymApi: { paths: ['lambdas/gym-api/'], says: 'reporting API client: token, paging, schemas' },
  Sandbox: { paths: ['sandbox/'], says: 'API sandbox: server, simulation, faults' },
  Events: { paths: ['lambdas/events/'], says: 'catalog, envelope, eventId, publisher, pattern matcher' },
  EventTooling: {
    paths: ['event-tooling/'],
    says: 'consumer package, schema compatibility, AsyncAPI, replay: no Lambda bundles it',
  },
  Sources: {
    paths: ['lambdas/sources/'],
    says: "one module per endpoint, and the club's operational events: producers of events",
  },
  Lifecycle: {
    paths: ['lambdas/lifecycle/'],
    says: 'the lifecycle: rules, evaluation, what it keeps, its events: a producer of events',
  },
  State: { paths: ['lambdas/state/'], says: 'store ports and adapters' },
  Clubs: { paths: ['lambdas/clubs/'], says: 'club registry and credentials' },
  Engine: { paths: ['lambdas/engine/'], says: 'watermark protocol, club polls, scheduling' },
  Handlers: { paths: ['lambdas/handlers/'], says: 'thin Lambda entry points' },
  Delivery: {
    paths: ['lambdas/delivery/'],
    says: 'webhook delivery: endpoints, signing, sending, retries, isolation; its own Lambda entry points',
  },
  LocalAws: { paths: ['local-aws/'], says: 'local AWS endpoints for the CLI, tests and bench' },
  Cli: { paths: ['cli/'], says: 'the CLI and the local demo' },
  Cdk: { paths: ['lib/', 'bin/'], says: 'constructs and the stack' },
  Bench: { paths: ['bench/'], says: 'benchmarks: cost, scale, freshness, throughput' },
};

/** The allowed arrows: what each part may import besides itself (the drawing's arrows). */
const MAY = {
  Common: [],
  GymApi: ['Common'],
  // Not drawn: the sandbox's simulation shares the one seeded random generator of common.
  Sandbox: ['GymApi', 'Common'],
  Events: ['Common', 'GymApi'],
  EventTooling: ['Events', 'Common'],
  Sources: ['GymApi', 'Events', 'Common'],
  // Not drawn: the club config schema lives in clubs/ (the evaluation reads the club's settings).
  Lifecycle: ['Sources', 'Events', 'State', 'GymApi', 'Common', 'Clubs'],
  State: ['Common'],
  Clubs: ['Events', 'Common'],
  // Not drawn: the club config schema lives in clubs/ (clubs -> engine stays forbidden).
  Engine: ['Lifecycle', 'Sources', 'Events', 'State', 'GymApi', 'Common', 'Clubs'],
  Handlers: ['Engine', 'Clubs', 'Common', 'Events', 'State'],
  // Not drawn: the webhook table has the state table's shape (pk, sk, expiresAt) and is made
  // by the same function.
  Delivery: ['Common', 'Events', 'State'],
  LocalAws: ['Common', 'Events'],
  // Not drawn: the CLI is an entry point like the handlers (status lists sources, the sample
  // rig reads the API operations, `schemas` renders the payment rules); it starts the local AWS
  // endpoints.
  Cli: [
    'Engine',
    'Lifecycle',
    'Sandbox',
    'Clubs',
    'State',
    'Events',
    'EventTooling',
    'Common',
    'Sources',
    'GymApi',
    'LocalAws',
    // The webhook events' samples run the delivery use cases in process.
    'Delivery',
  ],
  // Not drawn: the consumer constructs (bridge-subscription, bridge-lookup) take the catalog through
  // the consumer package `@gym-bridge/events`, as they do once published.
  Cdk: ['Common', 'Events', 'EventTooling', 'State'],
  // The bench runs the deployed path in process (the engine's use case, not the handlers) and
  // reads the stage settings of the CDK app; the webhook step runs the delivery Lambdas' handlers.
  Bench: [
    'Common',
    'GymApi',
    'Sandbox',
    'Events',
    'Sources',
    'State',
    'Clubs',
    'Engine',
    'Lifecycle',
    'LocalAws',
    'Cdk',
    'Delivery',
  ],
};

/** The arrows the drawing forbids, with their reasons (each is also outside MAY). */
const NEVER = [
  ['Common', 'Engine', 'common is the ground floor'],
  ['Common', 'State', 'common is the ground floor'],
  ['GymApi', 'Engine', 'the client knows nothing of the bridge'],
  ['GymApi', 'Events', 'the client knows nothing of events'],
  ['GymApi', 'State', 'the client knows nothing of storage'],
  ['Sources', 'State', "sources describe endpoints; storage is the engine's"],
  ['Events', 'Sources', 'the catalog does not depend on how records are read'],
  ['Events', 'Engine', 'events are below the engine'],
  ['State', 'Engine', 'adapters are below the engine'],
  ['Clubs', 'Engine', 'the registry is below the engine'],
  ['Engine', 'Handlers', 'the engine knows no Lambda'],
  ['Lifecycle', 'Engine', 'the poll calls the lifecycle, which never calls back into it'],
  ['Sources', 'Lifecycle', 'endpoints know nothing of the lifecycle built on them'],
  ['Engine', 'Cli', 'the engine knows no terminal'],
  ['Sandbox', 'Engine', 'the sandbox is independent of the bridge'],
  ['Sandbox', 'Sources', 'the sandbox is independent of the bridge'],
  ['Events', 'EventTooling', 'the Lambdas bundle events; the tooling is for consumers and the CLI'],
  ['Engine', 'EventTooling', 'no Lambda bundles the event tooling'],
  ['Handlers', 'EventTooling', 'no Lambda bundles the event tooling'],
  ['State', 'EventTooling', 'no Lambda bundles the event tooling'],
  ['Sources', 'EventTooling', 'no Lambda bundles the event tooling'],
  ['GymApi', 'EventTooling', 'the client knows nothing of events'],
  ['Handlers', 'Cdk', 'runtime never imports the CDK'],
  ['Engine', 'Cdk', 'runtime never imports the CDK'],
  ['Engine', 'Bench', 'runtime never imports the bench'],
  ['Cli', 'Bench', 'runtime never imports the bench'],
  ['Handlers', 'Bench', 'runtime never imports the bench'],
  ['Delivery', 'Engine', 'delivery reads the bus, not the polls'],
  ['Delivery', 'GymApi', 'delivery knows nothing of the gym API'],
  ['Delivery', 'Handlers', 'delivery has its own entry points'],
  ['Delivery', 'Bench', 'runtime never imports the bench'],
];

const runtime = { path: '^lambdas/' };

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathsOf = (...parts) => `^(${parts.flatMap((p) => PARTS[p].paths.map(escapeRegExp)).join('|')})`;
const kebab = (name) => name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();

const neverRules = NEVER.map(([from, to, reason]) => ({
  name: `never-${kebab(from)}-to-${kebab(to)}`,
  comment: `${from} must not import ${to}: ${reason}.`,
  severity: 'error',
  from: { path: pathsOf(from) },
  to: { path: pathsOf(to) },
}));

const forbiddenFor = (from) => new Set(NEVER.filter(([f]) => f === from).map(([, to]) => to));

const allowListRules = Object.keys(PARTS).map((from) => {
  const reported = new Set([from, ...MAY[from], ...forbiddenFor(from)]);
  if (from !== 'Cdk') reported.add('Cdk'); // runtime-never-imports-cdk says it
  // lambdas-hold-only-lambda-code says it for the parts outside lambdas/
  if (PARTS[from].paths.every((p) => p.startsWith('lambdas/')))
    for (const p of ['Cli', 'Sandbox', 'LocalAws', 'EventTooling']) reported.add(p);
  const others = Object.keys(PARTS).filter((p) => !reported.has(p));
  const allowed = MAY[from].length > 0 ? MAY[from].join(', ') : 'nothing';
  return {
    name: `${kebab(from)}-may-import-only`,
    comment: `${from} (${PARTS[from].says}) may import only itself and: ${allowed}. Any other arrow runs against the intended direction (.dependency-cruiser.cjs, MAY).`,
    severity: 'error',
    from: { path: pathsOf(from) },
    to: { path: others.length > 0 ? pathsOf(...others) : '^$' },
  };
});

module.exports = {
  forbidden: [
    ...neverRules,
    {
      name: 'no-import-cycles',
      comment:
        'No two files import each other, directly or through others (type-only imports count): a circle has no bottom to read it from. Move the shared piece (often a type) down to the file both sides may import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'only-producers-build-events',
      comment:
        "Events are built in one layer, the producers: sources/ (each endpoint's events and the club's operational events) and lifecycle/ (the lifecycle events); delivery builds its own webhook events. The engine and the handlers publish what the producers built and build none: an event's envelope and eventId are decided in one place. Move the builder into sources/ or lifecycle/ (plain data in) and call it.",
      severity: 'error',
      from: { path: '^lambdas/', pathNot: pathsOf('Sources', 'Lifecycle', 'Delivery') },
      to: { path: '^lambdas/events/envelope\\.ts$' },
    },
    {
      name: 'runtime-never-imports-cdk',
      comment:
        'Runtime code (lambdas/) never imports the CDK: not lib/ or bin/, not aws-cdk-lib, constructs or cdk-nag. Constants both sides need live in lambdas/common (the deployment contract).',
      severity: 'error',
      from: { path: '^lambdas/', pathNot: pathsOf('Handlers', 'Engine') },
      to: { path: pathsOf('Cdk') },
    },
    {
      name: 'runtime-never-imports-cdk-packages',
      comment: 'Runtime code (lambdas/) never imports aws-cdk-lib, constructs or cdk-nag.',
      severity: 'error',
      from: runtime,
      to: { path: '^node_modules/(aws-cdk-lib|aws-cdk|constructs|cdk-nag)/' },
    },
    {
      name: 'lambdas-hold-only-lambda-code',
      comment:
        'lambdas/ holds the code that runs in a Lambda: it imports nothing of the CLI, the sandbox, the local AWS endpoints or the event tooling (cli/, sandbox/, local-aws/, event-tooling/), which run on a machine and import lambdas/, not the reverse.',
      severity: 'error',
      from: runtime,
      to: { path: '^(cli|sandbox|local-aws|event-tooling)/' },
    },
    {
      name: 'runtime-never-imports-tests',
      comment:
        'Runtime code (lambdas/) never imports test/, bench/ or examples/: they depend on it, not the reverse.',
      severity: 'error',
      from: runtime,
      to: { path: '^(test|bench|examples)/' },
    },
    ...allowListRules,
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: '^node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|dist)/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
