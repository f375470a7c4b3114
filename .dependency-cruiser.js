/**
 * The dependency rule of issue 16, checked by `npm run lint:deps` (part of `npm test`, so CI holds
 * it): the domain (core/, verifiers/, rubrics/) never imports the I/O layer (services/), and no
 * module imports itself back through a cycle. Issue 39: a verifier is one folder, reached from
 * outside through the registry only. Type-only imports count too: a port the domain needs
 * belongs in core/. Issue 39 item 5: a unit test (`*.test.ts`) sits beside its module and is held
 * to that module's rules: beside domain code it is pure too, reaching into test/ only for the pure
 * helpers of test/pure/ (a test that needs a service is cross-layer and lives under test/); nothing
 * that ships imports a test or test/.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-io',
      comment: 'core/, verifiers/, rubrics/, curate/ and audit/ (and test/pure/, the helpers their tests share) are pure: they see services only through the ports in core/.',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit|test/pure)/' },
      to: { path: '^(services|cli)/' },
    },
    {
      name: 'domain-loads-no-io-package',
      comment:
        'Pool threads load the domain: it must not pull in a network, process, database, metrics or isolate package ' +
        '(test/architecture/pool-thread.test.ts checks what a thread really loads).',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit|test/pure)/' },
      to: {
        path: '^(node:)?(child_process|net|http|https|http2|dgram|cluster|worker_threads)$|node_modules/(better-sqlite3|openai|prom-client|isolated-vm|@grpc|express|piscina|yaml|commander|cli-progress|@huggingface)/',
      },
    },
    {
      name: 'verifier-is-one-folder',
      comment:
        'A verifier is its folder: what one verifier shares with another belongs in core/ or rubrics/, so that ' +
        'a verifier can be added, changed or removed as one folder plus its line in verifiers/index.ts.',
      severity: 'error',
      from: { path: '^verifiers/([^/]+)/' },
      to: { path: '^verifiers/', pathNot: ['^verifiers/$1/'] },
    },
    {
      name: 'verifiers-reached-through-the-registry',
      comment:
        'Outside verifiers/, the serving and CLI code reach verifiers only through verifiers/index.ts (the registry) ' +
        'and what their definitions declare (sections, example): a fact about a verifier written elsewhere goes stale. ' +
        'cli/pairs.ts reads conversations as the rlhf verifier does (the reward model\'s input), on purpose.',
      severity: 'error',
      from: { path: '^(core|rubrics|services|cli|web|curate|audit)/', pathNot: '^cli/pairs\\.ts$' },
      to: { path: '^verifiers/[^/]+/' },
    },
    {
      name: 'heavy-clients-load-where-used',
      comment:
        'openai, better-sqlite3 and dockerode (which brings grpc-js and protobufjs) are ~400 modules that only ' +
        'a configured judge, cache, embeddings endpoint or docker backend needs: the modules that use them ' +
        'import their types only and require() the package when they open one, so `verdict score` and the ' +
        'other commands do not load them at start-up (issue 39, offline speed).',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit|services|cli|web)/', pathNot: '\\.test\\.ts$' },
      to: { path: 'node_modules/(openai|better-sqlite3|dockerode)/', dependencyTypesNot: ['type-only', 'type-import', 'require', 'dynamic-import'] },
    },
    {
      name: 'serving-stack-loads-for-serve',
      comment:
        'The CLI loads the gRPC server and HTTP gateway (services/server.ts) for `verdict serve` alone, and the ' +
        'gRPC client for `--server` alone (cli/remote-scorer.ts): a dynamic import, not part of every command\'s start-up.',
      severity: 'error',
      from: { path: '^cli/', pathNot: '^cli/remote-scorer\\.ts$' },
      to: { path: '^services/(server|grpc/(server|client))\\.ts$|^cli/remote-scorer\\.ts$', dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'] },
    },
    {
      name: 'production-imports-no-test',
      comment:
        'Tests may import what they test, never the reverse: code that ships (everything but test/, bench/ and *.test.ts) ' +
        'imports nothing from test/ and no test file, or the image (which drops them) would not run.',
      severity: 'error',
      from: { pathNot: ['^test/', '^bench/', '\\.test\\.ts$'] },
      to: { path: ['^test/', '\\.test\\.ts$'] },
    },
    {
      name: 'domain-tests-import-pure-helpers',
      comment:
        'A unit test beside domain code is pure like it: of test/ it may import test/pure/ only, which keeps to the domain rule ' +
        '(a test that needs a service, a fake server or a file of ../shared/ is cross-layer and lives under test/).',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit)/.*\\.test\\.ts$' },
      to: { path: '^test/', pathNot: '^test/pure/' },
    },
    {
      name: 'test-imports-no-test',
      comment: 'A test file imported by another runs its describe blocks twice: shared helpers go in a module of their own.',
      severity: 'error',
      from: { path: '\\.test\\.ts$' },
      to: { path: '\\.test\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'An import cycle hides which module is built first; break it with a port or a composition root.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The project compiles to CommonJS: resolve packages' "exports" the way require() does.
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['require', 'node', 'default'],
    },
  },
};
