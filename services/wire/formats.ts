import type { ScoreResult } from '../../core/sample';
import type { EncodedChunk, WireFormat } from '../engine/encoded';
import { encodeScoreResults } from './binary';
import { resultText } from './json';

/** How a pool thread encodes a chunk's results for each transport: ScoreResult messages (gRPC), JSON objects' text (HTTP). */
export const CHUNK_ENCODERS: Record<WireFormat, (results: readonly ScoreResult[]) => EncodedChunk> = {
  protobuf: (results) => ({ wire: 'protobuf', ...encodeScoreResults(results) }),
  json: (results) => {
    const texts = results.map(resultText);
    const joined = texts.join('');
    const bytes = Buffer.from(joined, 'utf8');
    // Where each ends in bytes: its characters, while every character is one byte.
    const ascii = bytes.length === joined.length;
    let end = 0;
    const ends = texts.map((text) => (end += ascii ? text.length : Buffer.byteLength(text, 'utf8')));
    return { wire: 'json', bytes, ends };
  },
};
