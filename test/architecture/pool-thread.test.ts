import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SCORE_VERIFIERS } from '../../cli/pool-entry';
import { consumedColumns, mappingFrom, type Mapping } from '../../cli/dataset/mapping';
import type { RowsJob, RowsReply } from '../../cli/dataset/pool-rows';
import { rowFields } from '../../cli/dataset/row-fields';
import { parseConfig } from '../../services/config';
import { VERDICT_VERIFIERS } from '../../services/pool-entry';

const DIST = path.resolve(__dirname, '..', '..');

/**
 * Loads `module` in a fresh worker thread the way a pool thread does (require it, run one task
 * through its default export when it has one) and answers every file the thread then holds loaded.
 */
function loadedBy(module: string): Promise<string[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const handler = require(workerData.module).default;
    if (typeof handler === 'function') {
      handler({ op: 'score', samples: [{ id: 'a', verifier: 'qa', response: '\\\\boxed{C}', label: { choice: 'C' },
        groupId: '', responseTokens: 0, metadata: {} }] });
    }
    parentPort.postMessage(Object.keys(require.cache));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { module } });
    worker.once('message', (files: string[]) => {
      void worker.terminate();
      resolve(files);
    });
    worker.once('error', reject);
  });
}

// piscina is not among them: a pool thread runs inside it anyway, and the handler marks an encoded
// chunk's buffers to be moved, not copied, with its `move` (services/pool/worker.ts).
const IO_PACKAGES = /node_modules\/(better-sqlite3|openai|prom-client|isolated-vm|@grpc|express|yaml)\//;

/** Runs one `rows` job (verdict score's) in a fresh thread through the entry's handler: its reply and the files the thread then holds. */
function rowsJobIn(job: RowsJob): Promise<{ reply: RowsReply; files: string[] }> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const handler = require(workerData.module).default;
    Promise.resolve(handler({ op: 'job', name: 'rows', payload: workerData.job }))
      .then((reply) => parentPort.postMessage({ reply, files: Object.keys(require.cache) }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { module: SCORE_VERIFIERS.module, job } });
    worker.once('message', (message: { reply: RowsReply; files: string[] }) => {
      void worker.terminate();
      resolve(message);
    });
    worker.once('error', reject);
  });
}

describe('a pool thread', () => {
  it('loads only pure code: core/, verifiers/, rubrics/ and the pool handler', async () => {
    const files = await loadedBy(VERDICT_VERIFIERS.module);
    const own = files.filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`)).map((f) => path.relative(DIST, f));
    // The probe really loaded the verifiers (and scored a sample through them).
    expect(own).toContain(path.join('verifiers', 'index.js'));
    expect(own).toContain(path.join('verifiers', 'qa', 'index.js'));
    // Besides the domain: the pool handler, the collections it runs (idle-gc.js: V8's own gc function;
    // pool/collections.js: the shared counters by which the calling thread asks for a full one), and
    // the Score API's codec with which a thread encodes the results it scores (byte and text
    // building; wire/ holds no transport).
    const outside = own.filter(
      (f) =>
        !/^(core|verifiers|rubrics|services\/wire)\//.test(f) &&
        !['services/pool-entry.js', 'services/pool/worker.js', 'services/idle-gc.js', 'services/pool/collections.js', 'services/pool/tasks.js', 'services/engine/result.js', 'services/engine/details.js', 'services/engine/encoded.js'].includes(f),
    );
    expect(outside).toEqual([]);
    expect(files.filter((f) => IO_PACKAGES.test(f))).toEqual([]);
  });

  it("verdict score's threads add only the modules that make result rows (cli/pool-entry.ts)", async () => {
    const files = await loadedBy(SCORE_VERIFIERS.module);
    const own = files.filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`)).map((f) => path.relative(DIST, f));
    expect(own).toContain(path.join('cli', 'dataset', 'pool-rows.js'));
    const outside = own.filter(
      (f) =>
        !/^(core|verifiers|rubrics|services\/wire)\//.test(f) &&
        !/^cli\/(pool-entry|receipt|dataset\/(pool-rows|result-rows|row-fields|lines|json-line|mapping|row-samples|result-columns|compression))\.js$/.test(f) &&
        !['services/pool/worker.js', 'services/idle-gc.js', 'services/pool/collections.js', 'services/pool/tasks.js', 'services/engine/result.js', 'services/engine/details.js', 'services/engine/encoded.js'].includes(f),
    );
    expect(outside).toEqual([]);
    expect(files.filter((f) => IO_PACKAGES.test(f))).toEqual([]);
  });

  it("verdict score's threads make result rows without protobuf-es: the calling thread gives them the descriptors' tables", async () => {
    const mapping = (mappingFrom({}) as { ok: true; mapping: Mapping }).mapping;
    const lines = ['{"id":"a","verifier":"qa","response":"\\\\boxed{C}","label":{"choice":"C"},"source":"x"}', '{"id":"b","verifier":"qa","response":"no","label":{"choice":"C"}}'];
    const job: RowsJob = {
      block: { bytes: new TextEncoder().encode(lines.join('\n') + '\n'), firstLine: 1, lines: 2 },
      after: 0,
      rules: { mapping, consumed: consumedColumns(mapping), keepColumns: true, keepResponse: false },
      config: parseConfig({}),
      maxResponseChars: 1 << 20,
      format: 'jsonl',
      fields: rowFields(),
    };
    const { reply, files } = await rowsJobIn(job);
    const rows = reply.parts.map((part) => new TextDecoder().decode(part as Uint8Array)).join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // The rows were really made there: scored, with their receipts and the passed-through column.
    expect(rows.map((row) => [row.id, row.status, row.reward, row.source])).toEqual([['a', 'STATUS_OK', 1, 'x'], ['b', 'STATUS_OK', 0, undefined]]);
    expect(Object.keys(rows[0]!)).toEqual([...rowFields().resultColumns.filter((c) => c in rows[0]!), 'source']);
    expect(files.filter((f) => f.includes(`${path.sep}@bufbuild${path.sep}`) || f.includes(`${path.sep}gen${path.sep}`))).toEqual([]);
  });

  it('would notice a service: the same probe on a service module sees its packages', async () => {
    // (bootstrap.ts loads each service's module when the config has its section, so the probe loads
    // one service directly: the judge's, whose metrics are prom-client's. Its client and cache
    // require openai and better-sqlite3 only when one is opened.)
    const files = await loadedBy(path.join(DIST, 'services', 'judge', 'index.js'));
    expect(files.filter((f) => IO_PACKAGES.test(f))).not.toEqual([]);
    expect(files.some((f) => f.endsWith(path.join('services', 'judge', 'metrics.js')))).toBe(true);
  });
});
