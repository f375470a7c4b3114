import path from 'node:path';
import { Worker } from 'node:worker_threads';

const DIST = path.resolve(__dirname, '..', '..');

/** Every file a fresh thread holds once it has loaded the CLI (every command defined, none run). */
function loadedByCli(): Promise<string[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    require(workerData.module);
    parentPort.postMessage(Object.keys(require.cache));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { module: path.join(DIST, 'cli', 'main.js') } });
    worker.once('message', (files: string[]) => {
      void worker.terminate();
      resolve(files);
    });
    worker.once('error', reject);
  });
}

/** What a command loads in its action: the verifiers, the services, the engine, each command's implementation. */
const RUN_MODULES = new RegExp(
  [
    '^(verifiers|rubrics|audit)/',
    '^services/(bootstrap|runtime|pool-entry|server|log|config/index|engine/engine|pool/executor|pool/tasks)\\.js$',
    '^services/(judge|sandbox|agent-state|js-isolate|reward-model|grpc|http)/(?!config\\.js$|same-origin\\.js$)',
    '^cli/(score|scorer|check|diff|pairs|doctor|tokenizer|service-hints)\\.js$',
    '^cli/(curate|audit)/(?!command\\.js$)',
  ].join('|'),
);
const RUN_PACKAGES = /node_modules\/(@grpc|pino|prom-client|isolated-vm|express|yaml|@huggingface|cli-progress|tar-stream|better-sqlite3|openai)\//;

describe('the CLI, before a command runs', () => {
  it('has loaded the commands\' definitions only: `verdict score` starts its pool threads before it loads the run', async () => {
    const files = await loadedByCli();
    const own = files.filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`)).map((f) => path.relative(DIST, f).split(path.sep).join('/'));
    // The probe really loaded the CLI, and the one module a run needs before its threads start.
    expect(own).toEqual(expect.arrayContaining(['cli/main.js', 'cli/score-command.js', 'services/pool/threads.js']));
    expect(own.filter((f) => RUN_MODULES.test(f))).toEqual([]);
    expect(files.filter((f) => RUN_PACKAGES.test(f))).toEqual([]);
  });
});
