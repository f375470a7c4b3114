import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { ScoreResult } from '../core/sample';
import { decodeScoreRequest, encodeScoreRequest, encodeScoreResponse, scanScoreRequest } from '../services/wire/binary';
import { ScoreRequestSchema, ScoreResponseSchema, Status as ProtoStatus } from '../services/wire/gen/verdict/v1/score_pb';
import { mathLabel, scoreMath } from '../verifiers/math';
import { loadMathBatch } from './math';
import { bestOf, heading, row } from './timing';

/**
 * `npm run bench -- wire`: the hand-written binary codec of the Score API (services/wire/binary.ts)
 * against protobuf-es's generated `fromBinary` / `toBinary` on the same messages, in the same run:
 * the math batch (4,096 samples) as a ScoreRequest, and its results (scored by the math verifier,
 * with their real details) as a ScoreResponse. protobuf-es gives labels, metadata and details as
 * plain JSON already (Struct fields are JsonObject), so both sides end with what the engine uses.
 * The hand codec stays only while these numbers say it pays (services/wire/README.md).
 */

const ROUNDS = 7;
const REPEAT = 8;

const PROTO_STATUS = { OK: ProtoStatus.OK, INVALID: ProtoStatus.INVALID, ABORTED: ProtoStatus.ABORTED } as const;

async function perSecond(samples: number, fn: () => unknown): Promise<number> {
  const { seconds } = await bestOf(ROUNDS, async () => {
    for (let i = 0; i < REPEAT; i++) fn();
  });
  return (samples * REPEAT) / seconds;
}

export async function run(): Promise<void> {
  heading('wire: hand codec vs protobuf-es (math batch, 4,096 samples; best of 7 rounds of 8 passes)');
  const samples = loadMathBatch();
  const request = encodeScoreRequest(samples);
  const results: ScoreResult[] = samples.map((sample, index) => {
    const outcome = scoreMath(sample.response, mathLabel.parse(sample.label));
    const result: ScoreResult = { id: sample.id, index, status: outcome.status, reason: outcome.reason, verifier: 'math', verifierVersion: '1', details: outcome.details };
    if (outcome.status === 'OK') result.reward = outcome.reward;
    return result;
  });
  const responseMessage = () =>
    create(ScoreResponseSchema, {
      results: results.map((r) => ({ ...r, status: PROTO_STATUS[r.status] })),
      groups: [],
    });
  const response = toBinary(ScoreResponseSchema, responseMessage());
  const sameBytes = Buffer.compare(Buffer.from(encodeScoreResponse(results, [])), Buffer.from(response)) === 0;

  const cases: Array<{ what: string; hand: () => unknown; library: () => unknown }> = [
    { what: 'request decode (whole samples)', hand: () => decodeScoreRequest(request), library: () => fromBinary(ScoreRequestSchema, request) },
    { what: 'request scan (server path)', hand: () => scanScoreRequest(request), library: () => fromBinary(ScoreRequestSchema, request) },
    { what: 'request encode', hand: () => encodeScoreRequest(samples), library: () => toBinary(ScoreRequestSchema, create(ScoreRequestSchema, { samples })) },
    { what: 'response encode', hand: () => encodeScoreResponse(results, []), library: () => toBinary(ScoreResponseSchema, responseMessage()) },
  ];
  const widths = [34, 22, 22, 30];
  process.stdout.write(`request ${(request.length / 1024).toFixed(0)} KiB, response ${(response.length / 1024).toFixed(0)} KiB; response bytes identical: ${sameBytes}\n`);
  process.stdout.write(row(['operation', 'hand (samples/s)', 'protobuf-es (samples/s)', 'hand ÷ protobuf-es'], widths) + '\n');
  for (const c of cases) {
    // Alternated so that both sides see the same machine state.
    const hand = await perSecond(samples.length, c.hand);
    const library = await perSecond(samples.length, c.library);
    process.stdout.write(row([c.what, hand.toFixed(0), library.toFixed(0), `${(hand / library).toFixed(2)}×`], widths) + '\n');
  }
}
