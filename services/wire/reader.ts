import { WireType } from '@bufbuild/protobuf/wire';

/** The strings `Reader.name` answers again, by a hash of their bytes (one cache per thread; a collision replaces). */
const NAME_SLOTS = 256;
const MAX_NAME_BYTES = 32;
const NAMES: Array<string | undefined> = new Array<string | undefined>(NAME_SLOTS);

/**
 * A protobuf reader for the hot path, over a Buffer: strings are decoded by Node's UTF-8 slice
 * (@bufbuild/protobuf's BinaryReader goes through a TextDecoder call per string, which dominated
 * decoding a batch of short ids and labels). Malformed input throws a RangeError.
 */
export class Reader {
  pos = 0;
  readonly len: number;
  private readonly buf: Buffer;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.len = this.buf.length;
  }

  /** An unsigned varint, as a number; values past 32 bits keep their low 32 bits (as protobuf does for uint32). */
  uint32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.len) throw new RangeError('premature end of message');
      const byte = this.buf[this.pos++]!;
      if (shift < 32) result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
      shift += 7;
      if (shift >= 70) throw new RangeError('varint longer than 10 bytes');
    }
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  tag(): [number, WireType] {
    const tag = this.uint32();
    return [tag >>> 3, (tag & 7) as WireType];
  }

  double(): number {
    if (this.pos + 8 > this.len) throw new RangeError('premature end of message');
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** Passes over a length-delimited body; answers where it starts (it ends at the new `pos`). */
  private body(): number {
    const length = this.uint32();
    const start = this.pos;
    if (start + length > this.len) throw new RangeError('premature end of message');
    this.pos = start + length;
    return start;
  }

  /** A length-delimited body as a view of the input. */
  bytes(): Buffer {
    const start = this.body();
    return this.buf.subarray(start, this.pos);
  }

  string(): string {
    const start = this.body();
    const end = this.pos;
    const length = end - start;
    // Short ASCII strings (ids, names, reasons, most label and detail values) are built here: the
    // call into Buffer's UTF-8 decoding costs more than the loop.
    if (length <= 16) {
      const buf = this.buf;
      let out = '';
      for (let k = start; k < end; k++) {
        const c = buf[k]!;
        if (c >= 0x80) return buf.toString('utf8', start, end);
        out += String.fromCharCode(c);
      }
      return out;
    }
    return this.buf.toString('utf8', start, end);
  }

  /**
   * A string that repeats from message to message (a Struct's keys, verifier names, reasons): when
   * its bytes are those of a string met before, that string is answered, neither built nor allocated
   * again. Decoding a reply of 4,096 math results spent a third of its time building the same detail
   * keys (1.4 → 1.0 µs a result, measured). Short ASCII strings only; the rest are read as `string` reads them.
   */
  name(): string {
    const start = this.body();
    const end = this.pos;
    const length = end - start;
    if (length > MAX_NAME_BYTES) return this.buf.toString('utf8', start, end);
    const buf = this.buf;
    let hash = length;
    for (let k = start; k < end; k++) hash = (Math.imul(hash, 31) + buf[k]!) | 0;
    const slot = hash & (NAME_SLOTS - 1);
    const seen = NAMES[slot];
    if (seen !== undefined && seen.length === length) {
      let k = 0;
      while (k < length && seen.charCodeAt(k) === buf[start + k]) k++;
      if (k === length) return seen;
    }
    const out = buf.toString('utf8', start, end);
    // Only an ASCII string is kept: its characters are its bytes, which the comparison above relies on.
    if (out.length === length) NAMES[slot] = out;
    return out;
  }

  /** Skips a length-delimited body; answers its length. */
  skipBytes(): number {
    const length = this.uint32();
    this.pos += length;
    if (this.pos > this.len) throw new RangeError('premature end of message');
    return length;
  }

  /** Skips one field of an unknown number (groups, long deprecated, are refused). */
  skip(wireType: WireType): void {
    switch (wireType) {
      case WireType.Varint:
        this.uint32();
        return;
      case WireType.Bit64:
        this.pos += 8;
        break;
      case WireType.LengthDelimited:
        this.skipBytes();
        return;
      case WireType.Bit32:
        this.pos += 4;
        break;
      default:
        throw new RangeError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.len) throw new RangeError('premature end of message');
  }
}
