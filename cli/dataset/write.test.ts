import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { encodeBlock } from './compression';
import { openSink, partialPath } from './write';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'verdict-write-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a JSONL output file', () => {
  it('is written under its partial name and takes its own name only when closed', async () => {
    const file = path.join(dir, 'out.jsonl');
    const sink = openSink(file, 'jsonl', { durable: false });
    await sink.write([{ json: { a: 1 } }, { json: { b: 'é' } }]);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(partialPath(file), 'utf8')).toBe('{"a":1}\n{"b":"é"}\n');
    expect(sink.bytes()).toBe(Buffer.byteLength('{"a":1}\n{"b":"é"}\n'));
    await sink.write([]);
    await sink.close();
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":"é"}\n');
    expect(existsSync(partialPath(file))).toBe(false);
    await sink.abandon(); // after close: nothing to undo
    expect(existsSync(file)).toBe(true);
  });

  it('writes an input line as it was read, and what a pool thread encoded as it is', async () => {
    const file = path.join(dir, 'out.jsonl');
    const sink = openSink(file, 'jsonl', { durable: true });
    await sink.write([{ json: { ignored: true }, text: '{ "kept" :  "as read" }' }, { encoded: Buffer.from('{"from":"thread"}\n') }, { json: { c: 3 } }]);
    await sink.close();
    expect(readFileSync(file, 'utf8')).toBe('{ "kept" :  "as read" }\n{"from":"thread"}\n{"c":3}\n');
  });

  it('writes a batch of many parts (more than IOV_MAX, an empty one among them) in order, after what it wrote before', async () => {
    const file = path.join(dir, 'out.jsonl');
    const sink = openSink(file, 'jsonl', { durable: false });
    await sink.write([{ json: { first: true } }]);
    const lines = Array.from({ length: 3000 }, (_, i) => `{"n":${i}}\n`);
    await sink.write([...lines.map((line) => ({ encoded: Buffer.from(line) })), { encoded: new Uint8Array(0) }, { json: { last: true } }]);
    expect(sink.bytes()).toBe(Buffer.byteLength('{"first":true}\n' + lines.join('') + '{"last":true}\n'));
    await sink.close();
    expect(readFileSync(file, 'utf8')).toBe('{"first":true}\n' + lines.join('') + '{"last":true}\n');
  });

  it('gzip: runs of rows and encoded members follow one another, one stream to a reader', async () => {
    const file = path.join(dir, 'out.jsonl.gz');
    const sink = openSink(file, 'jsonl.gz', { durable: false });
    await sink.write([{ json: { a: 1 } }, { encoded: await encodeBlock('jsonl.gz', Buffer.from('{"b":2}\n')) }, { json: { c: 3 } }]);
    await sink.write([{ json: { d: 4 } }]);
    await sink.close();
    expect(gunzipSync(readFileSync(file)).toString()).toBe('{"a":1}\n{"b":2}\n{"c":3}\n{"d":4}\n');
  });

  it('abandoned: removed, unless it is kept for --resume', async () => {
    const lost = path.join(dir, 'lost.jsonl');
    const scratch = openSink(lost, 'jsonl', { durable: false });
    await scratch.write([{ json: { a: 1 } }]);
    await scratch.abandon();
    expect([existsSync(lost), existsSync(partialPath(lost))]).toEqual([false, false]);

    const kept = path.join(dir, 'kept.jsonl');
    const durable = openSink(kept, 'jsonl', { durable: true });
    await durable.write([{ json: { a: 1 } }]);
    await durable.abandon();
    expect([existsSync(kept), readFileSync(partialPath(kept), 'utf8')]).toEqual([false, '{"a":1}\n']);
  });

  it('resumed: keeps the bytes its checkpoint counted, cuts the rest, appends after them', async () => {
    const file = path.join(dir, 'out.jsonl');
    // A run killed mid-batch: the second line reached the disk, its checkpoint did not.
    writeFileSync(partialPath(file), '{"a":1}\n{"half of a longer row":');
    const sink = openSink(file, 'jsonl', { durable: true, keepBytes: 8 });
    expect(sink.bytes()).toBe(8);
    await sink.write([{ json: { b: 2 } }]);
    expect(sink.bytes()).toBe(16);
    await sink.close();
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('resumed: a run killed before its output existed starts it; one shorter than its checkpoint is refused', async () => {
    const fresh = path.join(dir, 'fresh.jsonl');
    const sink = openSink(fresh, 'jsonl', { durable: true, keepBytes: 0 });
    await sink.write([{ json: { a: 1 } }]);
    await sink.close();
    expect(readFileSync(fresh, 'utf8')).toBe('{"a":1}\n');

    const changed = path.join(dir, 'changed.jsonl');
    writeFileSync(partialPath(changed), '{"a":1}\n');
    expect(() => openSink(changed, 'jsonl', { durable: true, keepBytes: 100 })).toThrow(
      `${partialPath(changed)}: shorter than its checkpoint says (100 bytes); it was changed since, rerun without --resume`,
    );
    expect(readFileSync(partialPath(changed), 'utf8')).toBe('{"a":1}\n');
  });

  it('refuses Parquet on stdout', () => {
    expect(() => openSink('-', 'parquet', { durable: false })).toThrow('output: Parquet cannot be written to stdout; give a file (-o results.parquet)');
  });
});
