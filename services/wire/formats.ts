import type { ScoreResult } from '../../core/sample';
import type { EncodedChunk, ResultFormat } from '../engine/encoded';
import { encodeScoreResults } from './binary';
import { resultText } from './json';

/** How a pool thread encodes a chunk's results for each transport: ScoreResult messages (gRPC), JSON objects' text (HTTP). */
export const CHUNK_ENCODERS: Record<ResultFormat, (results: readonly ScoreResult[]) => EncodedChunk> = {
  protobuf: encodeScoreResults,
  json: (results) => ({ texts: results.map(resultText) }),
};
