import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textKey } from '../../services/embeddings';
import { FakeEmbeddingsServer } from '../fakes/fake-embeddings-server';
import { VERDICT_BIN } from '../fixtures/cli';
import { BENCH, TRAIN, writeFixtures } from './dense-fixtures';

type Row = Record<string, any>;

/**
 * `verdict curate dense` as a user runs it: the real CLI in a child process, a real HTTP embeddings
 * server in the OpenAI wire format on loopback, a real SQLite cache, fixtures holding a benchmark
 * problem verbatim, one reformatted past the 8-gram screen, and unrelated problems.
 */
describe('verdict curate dense', () => {
  let server: FakeEmbeddingsServer;
  let url: string;
  let dir: string;
  let files: { train: string; bench: string };
  beforeEach(async () => {
    server = new FakeEmbeddingsServer({ dims: 128 });
    url = await server.start();
    dir = mkdtempSync(join(tmpdir(), 'verdict-dense-'));
    files = writeFixtures(dir);
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const out = (name: string) => join(dir, name);
  const readJsonl = (path: string): Row[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row);

  /** Runs the CLI without blocking this process's event loop (the fake server lives here). */
  const run = (args: string[], onSpawn?: (kill: () => void) => void) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [VERDICT_BIN, 'curate', 'dense', ...args], {
        cwd: dir,
        env: { ...process.env, VERDICT_EMBEDDINGS_DEFAULT_URL: url, VERDICT_EMBEDDINGS_DEFAULT_MODEL: 'fake-embed' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      onSpawn?.(() => child.kill('SIGKILL'));
    });

  const base = () => [files.train, '--benchmark', `aime24=${files.bench}`, '--text-field', 'messages', '--k', '2', '--threshold', '0.5', '--workers', '1'];

  it('lists the verbatim and the reformatted problem above the threshold, the unrelated ones only as items\' nearest, with both texts, the 8-gram flags and the shared spans', async () => {
    const result = await run([...base(), '--candidates', out('pairs.jsonl'), '--summary-json', out('summary.json')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const pairs = readJsonl(out('pairs.jsonl'));
    const above = pairs.filter((p) => p.reasons.includes('threshold'));
    expect(above.map((p) => [p.id, p.itemId]).sort()).toEqual([['reformatted', 'aime-2'], ['verbatim', 'aime-1']]);
    const verbatim = above.find((p) => p.id === 'verbatim')!;
    expect(verbatim).toMatchObject({ benchmark: 'aime24', line: 1, ngram: { sampled: true, exhaustive: true }, itemText: BENCH[0]!.problem, decision: null });
    expect(verbatim.sample).toBe(textKey(verbatim.sampleText));
    expect(verbatim.sampleText).toContain(BENCH[0]!.problem);
    // The whole problem is one shared run in both texts.
    const [start, end] = verbatim.spans.item[0];
    expect(verbatim.itemText.slice(start, end)).toBe(BENCH[0]!.problem.replace(/\.$/, ''));
    const reformatted = above.find((p) => p.id === 'reformatted')!;
    expect(reformatted.ngram).toEqual({ sampled: false, exhaustive: false });
    expect(reformatted.similarity).toBeLessThan(verbatim.similarity);
    // Every item shows its k = 2 nearest samples, whatever their similarity.
    for (const item of BENCH) expect(pairs.filter((p) => p.itemId === item.id && p.reasons.includes('item_top_k')).length).toBe(2);
    for (const p of pairs.filter((q) => String(q.id).startsWith('unrelated'))) expect(p.reasons).toEqual(['item_top_k']);

    const summary = JSON.parse(readFileSync(out('summary.json'), 'utf8')) as Row;
    expect(summary).toMatchObject({ kind: 'verdict.curate', version: 1, command: 'dense', samples: TRAIN.length, emptySamples: 1, dropped: null });
    expect(summary.embedding).toMatchObject({ model: 'fake-embed', dimensions: 128, embedded: BENCH.length + TRAIN.length - 1, cached: 0 });
    expect(summary.benchmarks).toEqual([{ benchmark: 'aime24', items: 4, emptyItems: 0, aboveThreshold: 2, pairs: pairs.length, ngramFlagged: 1, contaminated: 0, benign: 0, undecided: pairs.length }]);
    expect(summary.pairs).toEqual(pairs);
    expect(result.stdout).toMatch(/aime24 +4 +2/);

    // A second run costs no embedding: every text is in the cache; HNSW finds the same pairs here.
    const requests = server.requests.length;
    const again = await run([...base(), '--search', 'hnsw', '--candidates', out('pairs-hnsw.jsonl')]);
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(requests);
    expect(readJsonl(out('pairs-hnsw.jsonl')).map((p) => [p.id, p.itemId, p.similarity])).toEqual(pairs.map((p) => [p.id, p.itemId, p.similarity]));
  });

  it('applies a review: drops the samples confirmed contaminated with who decided, keeps the benign, and counts each', async () => {
    expect((await run([...base(), '--candidates', out('pairs.jsonl')])).code).toBe(0);
    const pairs = readJsonl(out('pairs.jsonl'));
    const pick = (id: string) => pairs.find((p) => p.id === id && p.reasons.includes('threshold'))!;
    const decision = (p: Row, verdict: string, reviewer: string) => ({ benchmark: p.benchmark, itemId: p.itemId, sample: p.sample, decision: verdict, reviewer, decidedAt: '2026-12-07T05:00:00.000Z', line: p.line, id: p.id, similarity: p.similarity, note: null });
    writeFileSync(
      out('decisions.jsonl'),
      [decision(pick('verbatim'), 'benign', 'bob'), decision(pick('reformatted'), 'benign', 'alice'), decision(pick('verbatim'), 'contaminated', 'alice')].map((d) => JSON.stringify(d)).join('\n') + '\n',
    );
    const requests = server.requests.length;
    const applied = await run([...base(), '--decisions', out('decisions.jsonl'), '-o', out('kept.jsonl'), '--removed', out('removed.jsonl'), '--summary-json', out('summary.json')]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(server.requests.length).toBe(requests);
    // Kept rows are the input lines untouched, less the confirmed one.
    const lines = readFileSync(files.train, 'utf8').split('\n').filter((l) => l !== '');
    expect(readFileSync(out('kept.jsonl'), 'utf8')).toBe(lines.filter((_, i) => i !== 0).join('\n') + '\n');
    const removed = readJsonl(out('removed.jsonl'));
    expect(removed).toHaveLength(1);
    // The later line replaced bob's earlier decision on the same pair.
    expect(removed[0]).toMatchObject({ line: 1, id: 'verbatim', decisions: [{ reviewer: 'alice', decision: 'contaminated', itemId: 'aime-1' }], row: TRAIN[0] });
    const summary = JSON.parse(readFileSync(out('summary.json'), 'utf8')) as Row;
    expect(summary).toMatchObject({ dropped: 1, kept: TRAIN.length - 1, decisions: { pairs: 2, reviewers: ['alice'] } });
    expect(summary.benchmarks[0]).toMatchObject({ contaminated: 1, benign: 1, undecided: pairs.length - 2 });
  });

  it('a bad decisions line stops the run naming the file, the line and the field', async () => {
    writeFileSync(out('decisions.jsonl'), JSON.stringify({ benchmark: 'aime24', itemId: 'aime-1', sample: 'f'.repeat(64), decision: 'contaminated', reviewer: 'al', decidedAt: '2026-12-07T05:00:00Z' }) + '\n' + JSON.stringify({ benchmark: 'aime24', itemId: 'aime-1', sample: 'f'.repeat(64), decision: 'maybe', reviewer: 'al', decidedAt: '2026-12-07T05:00:00Z' }) + '\n');
    const result = await run([...base(), '--decisions', out('decisions.jsonl')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`--decisions ${out('decisions.jsonl')}:2: decision: expected "contaminated" or "benign", got "maybe"`);
    expect(server.requests).toHaveLength(0);
  });

  it('an endpoint that fails stops the run with a non-zero exit naming it; without a URL the flag to set is named', async () => {
    server.faults.push({ kind: 'dims', dims: 7 });
    writeFileSync(out('no-decisions.jsonl'), '');
    const wrong = await run([...base(), '--config', writeConfig({ dimensions: 128 }), '--decisions', out('no-decisions.jsonl'), '-o', out('kept.jsonl')]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/embeddings endpoint default .*7 dimensions, expected 128/);
    // A stopped run leaves no output under its name, not even a partial one.
    expect(existsSync(out('kept.jsonl'))).toBe(false);
    expect(existsSync(out('kept.jsonl.partial'))).toBe(false);
    const child = spawn(process.execPath, [VERDICT_BIN, 'curate', 'dense', files.train, '--benchmark', files.bench], { cwd: dir, env: { ...process.env, VERDICT_EMBEDDINGS_DEFAULT_URL: '', VERDICT_EMBEDDINGS_DEFAULT_MODEL: '' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('config.embeddings.endpoints.default.url: required (or set VERDICT_EMBEDDINGS_DEFAULT_URL)');
  });

  const writeConfig = (endpoint: Row) => {
    const path = out('verdict.json');
    writeFileSync(path, JSON.stringify({ embeddings: { cachePath: out('cache/embeddings.sqlite'), endpoints: { default: { url, model: 'fake-embed', batchSize: 2, maxConcurrency: 1, ...endpoint } } } }));
    return path;
  };

  it('resumes after a kill: the batches stored before it are not asked for again', async () => {
    const config = writeConfig({});
    let kill: () => void = () => {};
    // One request in flight at a time: when the third arrives, the first two batches are stored.
    server.onRequest = (_request, count) => {
      if (count === 3) kill();
    };
    const killed = await run([...base(), '--config', config, '--chunk', '2'], (k) => (kill = k));
    expect(killed.signal).toBe('SIGKILL');
    const first = server.requests.slice(0, 2).flatMap((r) => r.input);
    expect(first).toHaveLength(4);
    server.onRequest = null;
    const before = server.requests.length;
    const resumed = await run([...base(), '--config', config, '--chunk', '2', '--summary-json', out('summary.json')]);
    expect(resumed.code).toBe(0);
    const asked = server.requests.slice(before).flatMap((r) => r.input);
    for (const text of first) expect(asked).not.toContain(text);
    const summary = JSON.parse(readFileSync(out('summary.json'), 'utf8')) as Row;
    expect(summary.embedding.cached).toBeGreaterThanOrEqual(4);
    expect(summary.embedding.cached + summary.embedding.embedded).toBe(BENCH.length + TRAIN.length - 1);
  });
});
