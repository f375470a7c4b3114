import type { ScoreResult } from '../../core/sample';
import type { EncodedResult, ResultFormat } from '../engine/encoded';
import { encodeScoreResult } from './binary';
import { resultText } from './json';

/** How a pool thread encodes a result for each transport: a ScoreResult message (gRPC), its JSON object's text (HTTP). */
export const RESULT_ENCODERS: Record<ResultFormat, (result: ScoreResult) => EncodedResult> = {
  protobuf: (result) => encodeScoreResult(result),
  json: resultText,
};
