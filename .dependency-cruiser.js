/**
 * The dependency rule of issue 16, checked by `npm run lint:deps` (part of `npm test`, so CI holds
 * it): the domain (core/, verifiers/, rubrics/) never imports the I/O layer (services/), and no
 * module imports itself back through a cycle. Type-only imports count too: a port the domain needs
 * belongs in core/.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-io',
      comment: 'core/, verifiers/, rubrics/, curate/ and audit/ are pure: they see services only through the ports in core/.',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit)/' },
      to: { path: '^(services|cli)/' },
    },
    {
      name: 'domain-loads-no-io-package',
      comment:
        'Pool threads load the domain: it must not pull in a network, process, database, metrics or isolate package ' +
        '(test/architecture/pool-thread.test.ts checks what a thread really loads).',
      severity: 'error',
      from: { path: '^(core|verifiers|rubrics|curate|audit)/' },
      to: {
        path: '^(node:)?(child_process|net|http|https|http2|dgram|cluster|worker_threads)$|node_modules/(better-sqlite3|openai|prom-client|isolated-vm|@grpc|express|piscina|yaml|commander|cli-progress|@huggingface)/',
      },
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
