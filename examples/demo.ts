// `npm run demo`: starts `verdict serve` as its own process, scores the bundled example batch through
// the gRPC Score API, prints a table of results and group summaries, then stops the server with SIGTERM.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sample } from '../core/sample';
import { ScorerClient } from '../services/grpc/client';
import { packageRoot } from '../services/paths';
import { sampleFromJson } from '../services/wire/json';

function loadBatch(file: string): Sample[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const parsed = sampleFromJson(JSON.parse(line), `${path.basename(file)}:${i + 1}`);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.sample;
    });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  const root = packageRoot();
  const batch = loadBatch(path.join(root, 'examples', 'batch.jsonl'));
  const server = spawn(process.execPath, [path.join(root, 'bin', 'verdict.js'), 'serve', '--host', '127.0.0.1', '--port', '0', '--http-port', '0', '--config', path.join(root, 'examples', 'verdict.yaml')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      process.stdout.write(d);
      out += d.toString();
      const m = /gRPC on [\d.]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error(`verdict serve exited with ${code}`)));
  });

  const client = new ScorerClient(`127.0.0.1:${port}`);
  try {
    const { results, groups } = await client.score(batch, { deadlineMs: 120_000 });
    process.stdout.write(`\nScored ${results.length} samples through gRPC (127.0.0.1:${port}):\n\n`);
    process.stdout.write(
      table([
        ['id', 'verifier', 'status', 'reward', 'reason'],
        ...results.map((r) => [r.id, r.verifier, r.status, r.reward === undefined ? '-' : String(r.reward), r.reason.slice(0, 70)]),
      ]) + '\n\n',
    );
    process.stdout.write(
      table([
        ['group', 'size', 'ok', 'invalid', 'aborted', 'mean reward'],
        ...groups.map((g) => [g.groupId, String(g.size), String(g.ok), String(g.invalid), String(g.aborted), g.meanReward === undefined ? '-' : g.meanReward.toFixed(3)]),
      ]) + '\n',
    );
  } finally {
    client.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
