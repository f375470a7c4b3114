import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../fixtures/cli';

/** What a new user trips over: usage errors, errors that name the flag or file, and hints with the next step. */
const dir = mkdtempSync(path.join(tmpdir(), 'verdict-usage-'));
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const QA = JSON.stringify({ id: 'q', verifier: 'qa', response: '\\boxed{A}', label: { choice: 'A' } });

describe('usage errors: exit 2, one error line and a pointer to --help', () => {
  const input = write('one.jsonl', QA + '\n');
  it.each([
    [['score', input, '--ouput', 'x.jsonl'], /^error: unknown option '--ouput'\n\(Did you mean --output\?\)\n\(see verdict score --help\)\n$/],
    [['score', input, '--preset', 'verll'], /^error: option '--preset <name>' argument 'verll' is invalid\. Allowed choices are verl, openrlhf, slime\.\n\(see verdict score --help\)\n$/],
    [['score', input, '--workers', 'abc'], /^error: .*--workers must be an integer ≥ 0\n\(see verdict score --help\)\n$/],
    [['score'], /^error: missing required argument 'in'\n\(see verdict score --help\)\n$/],
    [['serve', '--port', '99999'], /^error: .*--port must be an integer from 0 to 65535\n\(see verdict serve --help\)\n$/],
    [['score', input, '--summary-json', '-'], /^verdict: --summary-json - and results on stdout cannot share it: .*\n\(see verdict score --help\)\n$/],
    [['nonesuch'], /^error: unknown command 'nonesuch'\n\(see verdict --help\)\n$/],
    [['curate', 'dedup', input, '--txt-field', 'x'], /^error: unknown option '--txt-field'\n\(Did you mean --text-field\?\)\n\(see verdict curate dedup --help\)\n$/],
  ])('%j', async (args, stderr) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(run.stdout).toBe('');
  });

  it('--help and --version still exit 0', async () => {
    expect((await runCli(['score', '--help'])).code).toBe(0);
    expect((await runCli(['--version'])).code).toBe(0);
  });
});

describe('errors that name the flag or file', () => {
  it('a busy port names its flag', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const http = await runCli(['serve', '--port', '0', '--http-port', String(port), '--workers', '0']);
      expect(http.code).toBe(2);
      expect(http.stderr).toMatch(new RegExp(`verdict: --http-port ${port}: HTTP on 127\\.0\\.0\\.1:${port}: cannot listen: the port is in use`));
      const grpc = await runCli(['serve', '--port', String(port), '--no-http', '--workers', '0']);
      expect(grpc.code).toBe(2);
      expect(grpc.stderr).toMatch(new RegExp(`verdict: --port ${port}: gRPC on 127\\.0\\.0\\.1:${port}: cannot listen: the port is in use`));
    } finally {
      busy.close();
    }
  });

  it('verdict report of a missing file, and of a --summary-json file, says what it is', async () => {
    const missing = await runCli(['report', path.join(dir, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: no such file \(the results of verdict score -o FILE/);
    expect(missing.stderr).not.toMatch(/ENOENT/);
    const input = write('report-in.jsonl', QA + '\n');
    const summary = path.join(dir, 'summary.json');
    expect((await runCli(['score', input, '-o', path.join(dir, 'r.jsonl'), '--summary-json', summary])).code).toBe(0);
    const report = await runCli(['report', summary, '-o', path.join(dir, 'summary.html')]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/this is the closing summary of verdict score \(--summary-json\)/);
  });

  it('an output extension no format has is refused, and nothing is written', async () => {
    const input = write('csv-in.jsonl', QA + '\n');
    const out = path.join(dir, 'y.csv');
    const run = await runCli(['score', input, '-o', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/-o .*y\.csv: unknown extension; name it \.jsonl, .* or choose the format with --output-format/);
    expect(existsSync(out)).toBe(false);
    expect((await runCli(['score', input, '-o', out, '--output-format', 'jsonl'])).code).toBe(0);
  });

  it('a config key with a slip names the key it is closest to', async () => {
    const config = write('slip.yaml', 'sandbx: {}\nterminal:\n  taskdir: /x\njudge:\n  endpoints:\n    search: {url: "http://127.0.0.1:1/v1", modle: m}\n');
    const run = await runCli(['score', write('cfg-in.jsonl', QA + '\n'), '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/slip\.yaml\.sandbx: unknown field \(did you mean "sandbox"\?\)/);
    expect(run.stderr).toMatch(/slip\.yaml\.terminal\.taskdir: unknown field \(did you mean "taskDir"\?\)/);
    expect(run.stderr).toMatch(/slip\.yaml\.judge\.endpoints\.search\.modle: unknown field \(did you mean "model"\?\)/);
  });
});

describe('hints with the next step, and the summary', () => {
  it('a JSON array instead of JSON Lines says so', async () => {
    const array = write('array.json', `[\n  ${QA},\n  ${QA}\n]\n`);
    const run = await runCli(['score', array]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/JSONL expected, one object a line; this looks like a JSON array/);
    const oneLine = write('array-line.json', `[${QA}]\n`);
    const rows = (await runCli(['score', oneLine, '--max-invalid', '1'])).stdout;
    expect(JSON.parse(rows.trim()).reason).toMatch(/^line 1: expected a JSON object, received array \(JSONL expected/);
  });

  it('ABORTED service_unavailable names the config section that serves the verifier', async () => {
    const code = JSON.stringify({ id: 'c', verifier: 'code', response: '```python\nprint(1)\n```', label: { mode: 'assert', fn_name: 'f', tests: ['assert f() == 1'] } });
    const run = await runCli(['score', write('code.jsonl', `${QA}\n${code}\n`), '-o', path.join(dir, 'code-out.jsonl')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/hint: 1 code sample was not scored \(ABORTED service_unavailable\): give --config FILE with sandbox: \{\}, e\.g\. --config examples\/verdict\.yaml/);
    expect(run.stdout).toMatch(/^scored 2 samples: 1 ok, 0 invalid, 1 aborted$/m);
    expect(run.stdout).toMatch(/qa\s+mean reward 1\.0000 over 1 ok sample$/m);
  });

  it('a code label without mode names the two modes', async () => {
    const bad = JSON.stringify({ id: 'c', verifier: 'code', response: 'x', label: { tests: [] } });
    const wrong = JSON.stringify({ id: 'd', verifier: 'code', response: 'x', label: { mode: 'io', tests: [] } });
    const rows = (await runCli(['score', write('mode.jsonl', `${bad}\n${wrong}\n`), '--max-invalid', '1'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { reason: string });
    expect(rows.map((r) => r.reason)).toEqual(['line 1: label.mode: required: "assert" or "stdio"', 'line 2: label.mode: expected "assert" or "stdio", received "io"']);
  });

  it('--summary-json - writes the summary to stdout, the text to stderr; "1 sample"', async () => {
    const run = await runCli(['score', write('sum.jsonl', QA + '\n'), '-o', path.join(dir, 'sum-out.jsonl'), '--summary-json', '-']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ total: 1, ok: 1, invalid: 0, aborted: 0 });
    expect(run.stderr).toMatch(/^scored 1 sample: 1 ok, 0 invalid, 0 aborted$/m);
    expect(existsSync(path.join(process.cwd(), '-'))).toBe(false);
    expect(readFileSync(path.join(dir, 'sum-out.jsonl'), 'utf8')).toMatch(/"status":"STATUS_OK"/);
  });
});

describe('data kept as it was', () => {
  it('a truncated .jsonl.gz names the file, and curate leaves no output behind', async () => {
    const { gzipSync } = await import('node:zlib');
    const rows = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ id: `r${i}`, prompt: `problem ${i} ${'x'.repeat(50)}` })).join('\n') + '\n';
    const whole = gzipSync(rows);
    const cut = write('cut.jsonl.gz', '');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const out = path.join(dir, 'cut-kept.jsonl');
    const run = await runCli(['curate', 'dedup', cut, '-o', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cut\.jsonl\.gz: cannot read past line \d+ \(unexpected end of file\): a truncated or corrupt jsonl\.gz file\?/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it('a score run stopped by an error leaves nothing under the output\'s name', async () => {
    const rows = [
      { id: 'a1', verifier: 'qa', groupId: 'a', response: '\\boxed{A}', label: { choice: 'A' } },
      { id: 'b1', verifier: 'qa', groupId: 'b', response: '\\boxed{A}', label: { choice: 'A' } },
      { id: 'a2', verifier: 'qa', groupId: 'a', response: '\\boxed{A}', label: { choice: 'A' } },
    ];
    const out = path.join(dir, 'stopped.jsonl');
    const run = await runCli(['score', write('split-group.jsonl', rows.map((r) => JSON.stringify(r)).join('\n') + '\n'), '-o', out, '--groups', path.join(dir, 'groups.jsonl'), '--batch-size', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/group "a" is not contiguous/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(path.join(dir, 'groups.jsonl'))).toBe(false);
    const parquet = path.join(dir, 'stopped.parquet');
    expect((await runCli(['score', write('split-group-2.jsonl', rows.map((r) => JSON.stringify(r)).join('\n') + '\n'), '-o', parquet, '--groups', path.join(dir, 'groups2.jsonl'), '--batch-size', '1'])).code).toBe(2);
    expect(existsSync(parquet)).toBe(false);
    expect(existsSync(`${parquet}.partial`)).toBe(false);
  });

  it('lines with bytes that are not UTF-8 are counted and said', async () => {
    const file = path.join(dir, 'latin1.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from(QA.replace('}}', '}, "note": "caf')), Buffer.from([0xe9]), Buffer.from('"}\n'), Buffer.from(QA + '\n'), Buffer.from('{"id": "z", "note": "\u00e9\u4e2d"}\n')]));
    const run = await runCli(['curate', 'dedup', file, '-o', path.join(dir, 'latin1-kept.jsonl')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/latin1\.jsonl: 1 line holds bytes that are not UTF-8; they were read, and are written, with U\+FFFD in their place/);
  });
});

describe('--help', () => {
  it('every command shows examples', async () => {
    const { program } = await import('../../cli/main');
    const { commandPath } = await import('../../cli/examples');
    type Cmd = ReturnType<typeof program>;
    const all: Cmd[] = [];
    const walk = (c: Cmd) => c.commands.forEach((sub) => (all.push(sub), walk(sub)));
    walk(program());
    expect(all.length).toBeGreaterThan(10);
    for (const command of all) {
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s) });
      command.outputHelp();
      expect([commandPath(command), text]).toEqual([commandPath(command), expect.stringMatching(/\nExamples:\n {2}\$ verdict /)]);
      // Flags that act only with another flag say so.
      if (commandPath(command) === 'curate learnability') {
        for (const flag of ['--workers', '--preset', '--server']) expect(command.options.find((o) => o.long === flag)!.description).toMatch(/^with --score: /);
      }
    }
  });
});

describe('a reader that closes the pipe', () => {
  it('verdict score --help | head: no stack trace, the status of SIGPIPE', async () => {
    const { spawn } = await import('node:child_process');
    const { VERDICT_BIN } = await import('../fixtures/cli');
    const child = spawn(process.execPath, [VERDICT_BIN, 'score', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the child has started Node, let alone written its help.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });
});
