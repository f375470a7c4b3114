/** Length-prefixed JSON frames (4-byte big-endian length, UTF-8 JSON): the harness's wire format. */
export function encodeFrame(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Accumulates stream chunks and yields every complete frame, in order. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): unknown[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: unknown[] = [];
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32BE(0);
      if (this.buffer.length < 4 + size) break;
      frames.push(JSON.parse(this.buffer.subarray(4, 4 + size).toString('utf8')));
      this.buffer = this.buffer.subarray(4 + size);
    }
    return frames;
  }
}
