import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { cutLines, splitLines } from './lines';

/** What `openLines` yields for these bytes: readline's lines, numbered, blank ones and those ≤ after left out. */
async function byReadline(bytes: Buffer, after: number): Promise<Array<{ line: number; text: string }>> {
  const out: Array<{ line: number; text: string }> = [];
  let line = 0;
  for await (const text of createInterface({ input: Readable.from(chunked(bytes, 7)), crlfDelay: Infinity })) {
    line++;
    if (line > after && text.trim() !== '') out.push({ line, text });
  }
  return out;
}

function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/** The same bytes cut into blocks of `blockLines` lines from chunks of `chunkBytes`, then split as the pool threads split them. */
async function byBlocks(bytes: Buffer, chunkBytes: number, blockLines: number, after: number): Promise<Array<{ line: number; text: string }>> {
  const out: Array<{ line: number; text: string }> = [];
  let next = 1;
  for await (const block of cutLines(Readable.from(chunked(bytes, chunkBytes)), blockLines)) {
    expect(block.firstLine).toBe(next);
    expect(block.lines).toBeGreaterThan(0);
    expect(block.lines).toBeLessThanOrEqual(blockLines);
    // A block holds its own bytes, so that a message to a thread copies only them.
    expect(block.bytes.byteLength).toBe(block.bytes.buffer.byteLength);
    next += block.lines;
    out.push(...splitLines(block, after));
  }
  return out;
}

const CASES: Record<string, string | Buffer> = {
  'LF, last line ended': '{"a":1}\n{"a":2}\n',
  'LF, last line without a break': '{"a":1}\n{"a":2}',
  CRLF: '{"a":1}\r\n{"a":2}\r\n{"a":3}',
  'lone CR': '{"a":1}\r{"a":2}\r\r{"a":3}\r',
  'mixed breaks and blank lines': '\n\n{"a":1}\r\n   \r\n\t\n{"a":2}\r\r\n{"a":3}\n\n',
  'a CR at the very end': '{"a":1}\n{"a":2}\r',
  'byte order mark and non-ASCII text': '\ufeff{"q":"é"}\n{"q":"日本語 😀"}\n',
  'bytes that are not UTF-8': Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}\n{"b":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n')]),
  'only blank lines': '\n \n\r\n',
  'empty input': '',
  'one long line': `{"r":"${'x'.repeat(5000)}"}\n{"a":1}`,
};

describe('JSONL lines cut in blocks as readline cuts them', () => {
  for (const [name, input] of Object.entries(CASES)) {
    it(name, async () => {
      const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
      for (const after of [0, 2]) {
        const expected = await byReadline(bytes, after);
        for (const chunkBytes of [1, 2, 3, 64, 1 << 16]) {
          for (const blockLines of [1, 2, 512]) {
            expect({ chunkBytes, blockLines, after, lines: await byBlocks(bytes, chunkBytes, blockLines, after) }).toEqual({ chunkBytes, blockLines, after, lines: expected });
          }
        }
      }
    });
  }

  it('counts every line in a block, blank ones too, so that the next block is numbered right', async () => {
    const blocks = [];
    for await (const block of cutLines(Readable.from([Buffer.from('a\n\nb\r\n\rc\n')]), 2)) blocks.push({ firstLine: block.firstLine, lines: block.lines });
    expect(blocks).toEqual([
      { firstLine: 1, lines: 2 },
      { firstLine: 3, lines: 2 },
      { firstLine: 5, lines: 1 },
    ]);
  });
});
