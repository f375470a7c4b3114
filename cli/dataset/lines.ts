// JSONL lines cut as Node's readline cuts them (openLines): a line ends at "\r\n", "\n" or a lone
// "\r", a final line needs no break, and blank lines are numbered but not rows. `verdict score`
// reads its input as blocks of whole lines (cutLines, on the calling thread: a search for line
// breaks and a copy) and splits them into lines on the pool threads (splitLines), so that the calling
// thread does no per-line work (dataset bench: readline cost it about a third of the rows' time).
// lines.test.ts holds both against readline on the same bytes.

/** Whole lines as bytes and where they are in the input. */
export interface LineBlock {
  /** The lines with their line breaks (the last one may have none at the end of the input), in a buffer of their own size. */
  bytes: Uint8Array;
  /** The number of the block's first line, from 1. */
  firstLine: number;
  /** Lines in the block, blank ones included. */
  lines: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Cuts a byte stream into blocks of `size` lines (the last one shorter). A "\r" at the end of what
 * has arrived waits for the next byte: "\r\n" is one line break. Each byte is copied once, into
 * its block: a block is gathered from views of the chunks it spans.
 */
export async function* cutLines(chunks: AsyncIterable<Buffer>, size: number): AsyncGenerator<LineBlock> {
  let pieces: Buffer[] = []; // views of earlier chunks: the block's lines so far, then an unfinished one
  let firstLine = 1;
  let counted = 0; // whole lines in the block so far
  let open = false; // bytes of an unfinished line follow them
  let pendingCr = false; // the last chunk ended in "\r": a line break, one byte or two
  const take = (chunk: Buffer, end: number): LineBlock => {
    pieces.push(chunk.subarray(0, end));
    const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.length;
    }
    const block = { bytes, firstLine, lines: counted };
    pieces = [];
    firstLine += counted;
    counted = 0;
    open = false;
    return block;
  };
  for await (let chunk of chunks) {
    if (chunk.length === 0) continue;
    let scan = 0;
    if (pendingCr) {
      pendingCr = false;
      scan = chunk[0] === LF ? 1 : 0;
      if (++counted === size) {
        yield take(chunk, scan);
        chunk = chunk.subarray(scan);
        scan = 0;
      }
    }
    // The next "\r" at or after `scan` (-1: none in the chunk); searched again only once passed, so
    // that a file without any costs one search per chunk, not one per line.
    let cr = -2;
    for (;;) {
      const lf = chunk.indexOf(LF, scan);
      if (cr !== -1 && cr < scan) cr = chunk.indexOf(CR, scan);
      let end: number;
      if (cr !== -1 && (lf === -1 || cr < lf - 1)) end = cr + 1;
      else if (lf !== -1) end = lf + 1;
      else break;
      if (end === chunk.length && chunk[end - 1] === CR) {
        pendingCr = true; // its line is counted with the next chunk's first byte
        scan = end;
        break;
      }
      scan = end;
      if (++counted === size) {
        yield take(chunk, end);
        chunk = chunk.subarray(end);
        scan = 0;
        cr = -2;
      }
    }
    if (chunk.length > 0) pieces.push(chunk);
    open = scan < chunk.length || pendingCr;
  }
  if (pieces.length > 0) {
    counted += open || pendingCr ? 1 : 0;
    yield take(Buffer.alloc(0), 0);
  }
}

/**
 * A block's non-blank lines, numbered; those numbered `after` or less (resumed) left out. Each line
 * is decoded on its own: one string per line, not slices of one string of the block (a block's
 * string sits in V8's large-object space and cost six times the decoding of its lines one by one).
 */
export function splitLines(block: Pick<LineBlock, 'bytes' | 'firstLine'>, after = 0): Array<{ line: number; text: string }> {
  const bytes = Buffer.from(block.bytes.buffer, block.bytes.byteOffset, block.bytes.byteLength);
  const out: Array<{ line: number; text: string }> = [];
  let line = block.firstLine;
  let start = 0;
  let cr = bytes.indexOf(CR) === -1 ? -1 : -2; // as in cutLines; -1 from the start for the usual file without "\r"
  while (start < bytes.length) {
    const lf = bytes.indexOf(LF, start);
    if (cr !== -1 && cr < start) cr = bytes.indexOf(CR, start);
    let stop = bytes.length;
    let next = bytes.length;
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      stop = cr;
      next = bytes[cr + 1] === LF ? cr + 2 : cr + 1;
    } else if (lf !== -1) {
      stop = lf;
      next = lf + 1;
    }
    if (line > after) {
      const text = bytes.toString('utf8', start, stop);
      if (text.trim() !== '') out.push({ line, text });
    }
    line++;
    start = next;
  }
  return out;
}
