import type { JsonObject } from '../../core/json';
import type { RoutedSample, Sample } from '../../core/sample';
import type { ScannedBatch } from '../engine/batch';
import { SAMPLE_BEYOND, setZeros, type NamedSampleField } from './contract';
import { MAX_JSON_DEPTH } from './depth';
import { Offsets } from './offsets';
import { SampleSchema } from './gen/verdict/v1/score_pb';

/**
 * The server's read of a `/v1/score` body that it can route without building it, as `scanScoreRequest`
 * is for protobuf: the JSON grammar checked byte by byte, each sample's routing fields (id, verifier,
 * group id, response tokens) read and the types of its other fields checked, labels and metadata
 * walked for depth; the samples stay in the body's bytes until a pool thread parses its own chunk.
 * `JSON.parse` of the whole body, and the structured clone of every sample object to a thread, were
 * most of what the thread that every request passes through spent on a large request.
 *
 * It answers null for whatever it does not prove plain and valid (malformed JSON, a wrong type, an
 * unknown or repeated field, an escaped field name, a label nested past the limit, group options):
 * the caller then reads the body in full (services/wire/request.ts), so errors and rare cases have
 * one implementation, and a body scanned here gives the samples the full read gives.
 */
export interface ScannedJsonRequest {
  /** Each sample's routing fields up front; response, label and metadata stay in the bytes. */
  samples: ScannedBatch;
}

/** Thrown inside the scan for anything it leaves to the full read. */
const NOT_PLAIN = Symbol('not plain');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
/** The characters JSON allows after a backslash, besides `u`: " \ / b f n r t. */
const SIMPLE_ESCAPES = new Uint8Array(128);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPES[c.charCodeAt(0)] = 1;
const LITERALS: Record<number, readonly number[]> = {
  0x74: [...Buffer.from('true')],
  0x66: [...Buffer.from('false')],
  0x6e: [...Buffer.from('null')],
};

/** Member names the scan knows, as bytes, with a bit per field (two spellings of one field share it). */
type Names = ReadonlyArray<{ bytes: Buffer; bit: number }>;

function names(entries: Array<[string, number]>): Names {
  return entries.map(([name, bit]) => ({ bytes: Buffer.from(name, 'latin1'), bit }));
}

/**
 * A bit per Sample field the scan reads: those binary.ts names too (contract.ts). A field the proto
 * adds later is not among them, so a body that sets it is declined and takes the full read, which
 * goes by the descriptor.
 */
const BIT: Readonly<Record<NamedSampleField, number>> = { id: 1, verifier: 2, response: 4, label: 8, groupId: 16, responseTokens: 32, metadata: 64 };

/** Sample fields by both their names in proto3 JSON, from the generated descriptor as the full read takes them. */
const SAMPLE_FIELDS = names(
  SampleSchema.fields.flatMap((field): Array<[string, number]> => {
    const bit = BIT[field.localName as NamedSampleField];
    return bit === undefined ? [] : [[field.jsonName, bit], [field.name, bit]];
  }),
);

class Scan {
  pos = 0;
  private readonly end: number;

  constructor(private readonly b: Buffer) {
    this.end = b.length;
  }

  ws(): void {
    const b = this.b;
    let p = this.pos;
    while (p < this.end) {
      const c = b[p]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
  }

  peek(): number {
    return this.pos < this.end ? this.b[this.pos]! : -1;
  }

  expect(c: number): void {
    if (this.peek() !== c) throw NOT_PLAIN;
    this.pos++;
  }

  /** After a member or an element: true at the container's end, false after a comma. */
  next(close: number): boolean {
    this.ws();
    const c = this.peek();
    this.pos++;
    if (c === close) return true;
    if (c !== COMMA) throw NOT_PLAIN;
    this.ws();
    return false;
  }

  /** A string; answers whether it holds an escape (its text then comes from JSON.parse). */
  string(): boolean {
    const b = this.b;
    let p = this.pos;
    if (b[p] !== QUOTE) throw NOT_PLAIN;
    p++;
    let escaped = false;
    for (;;) {
      const c = b[p];
      // Most bytes are plain characters: one test for them (undefined, past the end, fails it).
      if (c !== undefined && c >= 0x20 && c !== QUOTE && c !== BACKSLASH) {
        p++;
        continue;
      }
      if (c === QUOTE) break;
      if (c !== BACKSLASH) throw NOT_PLAIN; // a control character, or the end
      escaped = true;
      const e = b[p + 1];
      if (e === 0x75) {
        if (!(isHex(b[p + 2]) && isHex(b[p + 3]) && isHex(b[p + 4]) && isHex(b[p + 5]))) throw NOT_PLAIN;
        p += 6;
      } else if (e !== undefined && SIMPLE_ESCAPES[e] === 1) p += 2;
      else throw NOT_PLAIN;
    }
    this.pos = p + 1;
    return escaped;
  }

  /** The text of the string at pos. */
  stringValue(): string {
    const start = this.pos;
    const escaped = this.string();
    return escaped ? (JSON.parse(this.b.toString('utf8', start, this.pos)) as string) : this.b.toString('utf8', start + 1, this.pos - 1);
  }

  number(): number {
    const b = this.b;
    const start = this.pos;
    let p = start;
    if (b[p] === 0x2d) p++;
    if (b[p] === 0x30) p++;
    else if (isDigit(b[p])) while (isDigit(b[p])) p++;
    else throw NOT_PLAIN;
    if (b[p] === 0x2e) {
      p++;
      if (!isDigit(b[p])) throw NOT_PLAIN;
      while (isDigit(b[p])) p++;
    }
    if (b[p] === 0x65 || b[p] === 0x45) {
      p++;
      if (b[p] === 0x2b || b[p] === 0x2d) p++;
      if (!isDigit(b[p])) throw NOT_PLAIN;
      while (isDigit(b[p])) p++;
    }
    this.pos = p;
    return Number(this.b.toString('latin1', start, p));
  }

  literal(): number {
    const first = this.peek();
    const word = LITERALS[first];
    if (!word) throw NOT_PLAIN;
    for (let k = 0; k < word.length; k++) if (this.b[this.pos + k] !== word[k]) throw NOT_PLAIN;
    this.pos += word.length;
    return first;
  }

  /** Any value; objects and arrays in it are at `depth` + 1 and deeper. */
  value(depth: number): void {
    const c = this.peek();
    if (c === OPEN_BRACE) this.object(depth + 1);
    else if (c === OPEN_BRACKET) this.array(depth + 1);
    else if (c === QUOTE) this.string();
    else if (c === 0x2d || isDigit(c)) this.number();
    else this.literal();
  }

  /** An object at nesting level `depth` (a label itself is level 1, as services/wire/depth.ts counts). */
  object(depth: number): void {
    if (depth > MAX_JSON_DEPTH) throw NOT_PLAIN;
    this.expect(OPEN_BRACE);
    this.ws();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return;
    }
    do {
      this.string();
      this.ws();
      this.expect(COLON);
      this.ws();
      this.value(depth);
    } while (!this.next(CLOSE_BRACE));
  }

  array(depth: number): void {
    if (depth > MAX_JSON_DEPTH) throw NOT_PLAIN;
    this.expect(OPEN_BRACKET);
    this.ws();
    if (this.peek() === CLOSE_BRACKET) {
      this.pos++;
      return;
    }
    do this.value(depth);
    while (!this.next(CLOSE_BRACKET));
  }

  /** A member name that is one of `known` (no escapes): its bit. */
  key(known: Names): number {
    const start = this.pos + 1;
    if (this.string()) throw NOT_PLAIN;
    const length = this.pos - 1 - start;
    const b = this.b;
    let bit = 0;
    candidates: for (const { bytes, bit: candidate } of known) {
      if (bytes.length !== length) continue;
      for (let k = 0; k < length; k++) if (b[start + k] !== bytes[k]) continue candidates;
      bit = candidate;
      break;
    }
    if (bit === 0) throw NOT_PLAIN;
    this.ws();
    this.expect(COLON);
    this.ws();
    return bit;
  }

  /** One sample object: its routing fields, and its response's length in bytes. */
  sample(): { sample: RoutedSample; responseBytes: number } {
    const sample: RoutedSample = { id: '', verifier: '', groupId: '', responseTokens: 0 };
    let responseBytes = 0;
    let seen = 0;
    this.expect(OPEN_BRACE);
    this.ws();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return { sample, responseBytes };
    }
    do {
      const field = this.key(SAMPLE_FIELDS);
      if (seen & field) throw NOT_PLAIN;
      seen |= field;
      if (this.peek() === 0x6e) {
        this.literal(); // null: the field is unset
        continue;
      }
      switch (field) {
        case BIT.id:
          sample.id = this.stringValue();
          break;
        case BIT.verifier:
          sample.verifier = this.stringValue();
          break;
        case BIT.groupId:
          sample.groupId = this.stringValue();
          break;
        case BIT.response: {
          const start = this.pos;
          this.string();
          responseBytes = this.pos - start - 2;
          break;
        }
        case BIT.responseTokens: {
          if (this.peek() === QUOTE) throw NOT_PLAIN;
          const n = this.number();
          if (!(Number.isInteger(n) && n >= 0 && n <= 0xffffffff)) throw NOT_PLAIN;
          sample.responseTokens = n;
          break;
        }
        default:
          this.object(1); // label, metadata
      }
    } while (!this.next(CLOSE_BRACE));
    return { sample, responseBytes };
  }
}

const REQUEST_FIELDS = names([
  ['samples', 1],
  ['groupOptions', 2],
  ['group_options', 2],
]);

function scan(body: Buffer): ScannedJsonRequest {
  const s = new Scan(body);
  // A UTF-8 byte-order mark, which the full read drops too.
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) s.pos = 3;
  const routes: RoutedSample[] = [];
  const starts = new Offsets();
  const ends = new Offsets();
  const responseBytes = new Offsets();
  s.ws();
  s.expect(OPEN_BRACE);
  s.ws();
  if (s.peek() === CLOSE_BRACE) s.pos++;
  else {
    let seen = 0;
    do {
      const field = s.key(REQUEST_FIELDS);
      if (seen & field) throw NOT_PLAIN;
      seen |= field;
      if (s.peek() === 0x6e) {
        s.literal();
        continue;
      }
      // Group options: the request is read in full (shaping reads results and metadata whole).
      if (field === 2) throw NOT_PLAIN;
      s.expect(OPEN_BRACKET);
      s.ws();
      if (s.peek() === CLOSE_BRACKET) {
        s.pos++;
        continue;
      }
      do {
        starts.push(s.pos);
        const read = s.sample();
        ends.push(s.pos);
        routes.push(read.sample);
        responseBytes.push(read.responseBytes);
      } while (!s.next(CLOSE_BRACKET));
    } while (!s.next(CLOSE_BRACE));
  }
  s.ws();
  if (s.pos !== body.length) throw NOT_PLAIN;
  for (const offsets of [starts, ends, responseBytes]) offsets.trim();
  const batch: ScannedBatch = {
    routes,
    sample: (index) => scannedSample(JSON.parse(body.toString('utf8', starts.at(index), ends.at(index))) as ScannedSample),
    // A response's UTF-8 bytes bound its characters (an escape takes more bytes than its character).
    responseCharsAtMost: (index) => responseBytes.at(index),
    chunk(indices) {
      // A JSON array of the samples' objects, copied as they are.
      let size = 1 + Math.max(indices.length, 1);
      for (const i of indices) size += ends.at(i) - starts.at(i);
      const bytes = new Uint8Array(size);
      let p = 0;
      bytes[p++] = OPEN_BRACKET;
      indices.forEach((i, k) => {
        if (k > 0) bytes[p++] = COMMA;
        bytes.set(body.subarray(starts.at(i), ends.at(i)), p);
        p += ends.at(i) - starts.at(i);
      });
      bytes[p++] = CLOSE_BRACKET;
      return { wire: 'json', bytes: bytes.subarray(0, p) };
    },
  };
  return { samples: batch };
}

/** A `/v1/score` body read without building its samples, or null when it needs the full read (see ScannedJsonRequest). */
export function scanJsonScoreRequest(body: Buffer): ScannedJsonRequest | null {
  try {
    return scan(body);
  } catch (error) {
    if (error === NOT_PLAIN) return null;
    throw error;
  }
}

/**
 * A sample object the scan let through, as a Sample. The scan proved it plain (known fields, each
 * once, of their types), so it is taken as it is: checking it again cost as much as parsing it.
 */
function scannedSample(o: ScannedSample): Sample {
  // The scan declines the fields it does not name: those beyond are unset here.
  return setZeros({
    id: o.id ?? '',
    verifier: o.verifier ?? '',
    response: o.response ?? '',
    label: o.label ?? {},
    groupId: o.groupId ?? o.group_id ?? '',
    responseTokens: o.responseTokens ?? o.response_tokens ?? 0,
    metadata: o.metadata ?? {},
  } as Sample, SAMPLE_BEYOND);
}

/** A pool thread's packed chunk of JSON samples (SampleBatch.chunk above), decoded. */
export function decodePackedJsonSamples(bytes: Uint8Array): Sample[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return (JSON.parse(text) as ScannedSample[]).map(scannedSample);
}

/** A sample object as the scan lets it through: any field may be absent or null, a name in either spelling. */
interface ScannedSample {
  id?: string | null;
  verifier?: string | null;
  response?: string | null;
  label?: JsonObject | null;
  groupId?: string | null;
  group_id?: string | null;
  responseTokens?: number | null;
  response_tokens?: number | null;
  metadata?: JsonObject | null;
}
