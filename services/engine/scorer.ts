import { setMaxListeners } from 'node:events';
import { GroupStream, shapeGroups, type GroupOptions, type GroupSummary, type ShapedResult, type StreamItem } from '../../core/groups';
import type { Sample, ScoreResult } from '../../core/sample';
import { RESULT_BEYOND, RESULT_STRUCT_FIELDS, RESULT_TEXT_FIELDS } from '../wire/contract';
import { charsBound } from './details';
import { encodedBytesBound, type EncodedBatch, type WireFormat } from './encoded';
import type { Engine, ScoreOptions } from './engine';

/**
 * The Score use case over the Engine: one batch in, one result per sample and one summary per group
 * out. Group shaping, the reply size limit and the deadline live here, once; gRPC, the HTTP gateway,
 * the trainer routes and the CLI only translate their requests to a ScoreCall and its answer back.
 */

/** How big a reply may get, and the worst case of one character of a result in the transport's encoding. */
export interface ReplyLimit {
  maxBytes: number;
  /** UTF-8 protobuf: 3; JSON with escapes: 6. */
  bytesPerChar: number;
}

export interface ScoreCall {
  samples: readonly Sample[];
  /** null: summaries only, rewards unchanged. */
  groupOptions: GroupOptions | null;
  /** Samples the transport refused while decoding (position → INVALID reason). */
  rejected?: ReadonlyMap<number, string>;
  /** Cancellation by the caller (reason "cancelled" when not a string). */
  signal?: AbortSignal;
  /** When the caller stops waiting (epoch ms); the reply must be sent before it. */
  deadline?: number;
  /** What finishing the batch will cost the transport once work stops (ms; FinishCost.reserveMs), reserved before the deadline. */
  finishReserveMs?: number;
  reply?: ReplyLimit;
  /**
   * The wire format the transport sends results in: pool threads then encode each result as they
   * score it, and the transport copies the bytes (not with group shaping, which changes results).
   */
  format?: WireFormat;
  /** The batch in its wire form, `samples` being only their routing fields (see EncodedBatch). */
  encoded?: EncodedBatch;
}

export interface Scored {
  results: ShapedResult[];
  groups: GroupSummary[];
  /**
   * performance.now() when work stopped: at the deadline or cancel, else when the last result came.
   * A transport measures from here to the reply sent to learn what finishing a batch costs it.
   */
  stoppedAt: number;
  /** Work stopped before every sample was decided (deadline, cancel, shutdown). */
  stoppedEarly: boolean;
}

/** The reason for the results that do not fit in the reply. */
export const RESPONSE_TOO_LARGE = 'response_too_large';

/**
 * How long before the deadline work for a call with `budgetMs` left stops: 10% of the budget (50 ms
 * to 1 s) for the event loop and the network, plus the transport's measured cost of finishing the
 * batch — a 65,536-result reply takes longer to encode than the fixed margin alone covered.
 */
export function stopMargin(budgetMs: number, finishReserveMs: number): number {
  return Math.min(1000, Math.max(50, budgetMs * 0.1)) + finishReserveMs;
}

/** Characters for a result's tags and numbers: 64 for the fields the codecs name, a number's worst case with its JSON name for each other. */
const FIXED_CHARS = 64 + RESULT_BEYOND.reduce((sum, field) => sum + 28 + field.json.length, 0);

/** An upper bound on one result's encoded size in characters, as `limit` counts them: its text and Struct fields (by the descriptor) and FIXED_CHARS. */
function resultChars(result: ScoreResult, limit: ReplyLimit): number {
  const encoded = encodedBytesBound(result);
  if (encoded !== undefined) return Math.ceil(encoded / limit.bytesPerChar);
  const fields = result as unknown as Record<string, unknown>;
  let chars = FIXED_CHARS;
  for (const name of RESULT_TEXT_FIELDS) chars += (fields[name] as string | undefined)?.length ?? 0;
  for (const name of RESULT_STRUCT_FIELDS) chars += charsBound((fields[name] as ScoreResult['details'] | undefined) ?? {});
  return chars;
}

function tooLarge(result: ScoreResult, limit: ReplyLimit): ScoreResult {
  const { reward: _reward, ...rest } = result;
  return { ...rest, status: 'ABORTED', reason: RESPONSE_TOO_LARGE, details: { limitBytes: limit.maxBytes } };
}

/** Characters a group summary takes at most, besides its id. */
const GROUP_CHARS = 320;
/** Characters shaping adds to an OK result at most (rawReward, lengthPenalty, advantage). */
const SHAPING_CHARS = 128;

/**
 * Keeps the results that fit in `limit`, in input order, and marks the others ABORTED
 * "response_too_large": room for every such stub, the group summaries and what shaping adds is set
 * aside first, so the reply always fits.
 */
export function fitReply(results: readonly ScoreResult[], samples: readonly Sample[], shaping: boolean, limit: ReplyLimit): ScoreResult[] {
  const stubChars = (r: ScoreResult) => 96 + r.id.length + r.verifier.length + r.verifierVersion.length;
  let reserved = 0;
  for (const r of results) reserved += stubChars(r) + (shaping ? SHAPING_CHARS : 0);
  const groups = new Set<string>();
  for (const s of samples) {
    if (s.groupId !== '' && !groups.has(s.groupId)) {
      groups.add(s.groupId);
      reserved += GROUP_CHARS + s.groupId.length;
    }
  }
  let room = Math.floor(limit.maxBytes / limit.bytesPerChar) - reserved;
  let out: ScoreResult[] | null = null;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const extra = resultChars(r, limit) - stubChars(r);
    if (extra <= room) room -= Math.max(0, extra);
    else (out ??= results.slice())[i] = tooLarge(r, limit);
  }
  return out ?? (results as ScoreResult[]);
}

/** When work on a call stopped: its signal's abort, else the moment `settled` is asked (the last result). */
function watchStop(signal: AbortSignal): { settled(): Pick<Scored, 'stoppedAt' | 'stoppedEarly'>; dispose(): void } {
  let stoppedAt: number | undefined;
  const onStop = () => (stoppedAt = performance.now());
  if (signal.aborted) onStop();
  else signal.addEventListener('abort', onStop, { once: true });
  return {
    settled: () => (stoppedAt === undefined ? { stoppedAt: performance.now(), stoppedEarly: false } : { stoppedAt, stoppedEarly: true }),
    dispose: () => signal.removeEventListener('abort', onStop),
  };
}

/** Results that became ready together, and the summaries of the groups they complete (ScoreStreamBatches). */
export interface StreamBatch {
  results: ShapedResult[];
  groups: GroupSummary[];
}

/** Characters a result's field tag and length take in a reply, besides the result. */
const FRAMING_CHARS = 8;

export class Scorer {
  constructor(readonly engine: Engine) {}

  /** The whole batch: results in input order, shaped, with one summary per group. */
  async score(call: ScoreCall): Promise<Scored> {
    const { signal, dispose } = this.callSignal(call);
    const stop = watchStop(signal);
    try {
      let results = await this.engine.score(call.samples, { signal, ...this.engineOptions(call) });
      const stopped = stop.settled();
      if (call.reply) results = fitReply(results, call.samples, call.groupOptions !== null, call.reply);
      return { ...shapeGroups(call.samples, results, call.groupOptions), ...stopped };
    } finally {
      stop.dispose();
      dispose();
    }
  }

  /**
   * The batch as a stream: `send` gets each result as soon as it is decided (a group's results held
   * back until the group is complete when shaping), a group's summary on its last result.
   */
  async stream(call: ScoreCall, send: (item: StreamItem) => void): Promise<Pick<Scored, 'stoppedAt' | 'stoppedEarly'>> {
    const { signal, dispose } = this.callSignal(call);
    const stop = watchStop(signal);
    const groups = new GroupStream(call.samples, call.groupOptions);
    const limit = call.reply;
    const onResult = (result: ScoreResult) => {
      const fitted = limit && resultChars(result, limit) * limit.bytesPerChar > limit.maxBytes ? tooLarge(result, limit) : result;
      for (const item of groups.push(fitted)) send(item);
    };
    try {
      await this.engine.score(call.samples, { signal, onResult, ...this.engineOptions(call) });
      return stop.settled();
    } finally {
      stop.dispose();
      dispose();
    }
  }

  /**
   * The stream in batches: the items that come in one turn of the event loop (a pool chunk's
   * results are settled together; a held-back group is released whole) as one batch, sent at the
   * end of that turn. A batch is cut before a result that would take it past the reply limit, so
   * every batch fits in one message, as the whole reply of `score` does.
   */
  async streamBatches(call: ScoreCall, send: (batch: StreamBatch) => void): Promise<Pick<Scored, 'stoppedAt' | 'stoppedEarly'>> {
    const limit = call.reply;
    const room = limit ? Math.floor(limit.maxBytes / limit.bytesPerChar) : Number.POSITIVE_INFINITY;
    const shaping = call.groupOptions !== null ? SHAPING_CHARS : 0;
    let batch: StreamBatch = { results: [], groups: [] };
    let chars = 0;
    let scheduled: NodeJS.Immediate | undefined;
    const flush = () => {
      scheduled = undefined;
      if (batch.results.length === 0) return;
      send(batch);
      batch = { results: [], groups: [] };
      chars = 0;
    };
    const add = (item: StreamItem) => {
      const itemChars = limit
        ? FRAMING_CHARS + resultChars(item.result, limit) + shaping + (item.group ? GROUP_CHARS + item.group.groupId.length : 0)
        : 0;
      if (batch.results.length > 0 && chars + itemChars > room) flush();
      batch.results.push(item.result);
      if (item.group) batch.groups.push(item.group);
      chars += itemChars;
      scheduled ??= setImmediate(flush);
    };
    try {
      return await this.stream(call, add);
    } finally {
      if (scheduled) clearImmediate(scheduled);
      flush();
    }
  }

  private engineOptions(call: ScoreCall): Pick<ScoreOptions, 'rejected' | 'encode' | 'encoded'> {
    return {
      ...(call.rejected ? { rejected: call.rejected } : {}),
      ...(call.encoded ? { encoded: call.encoded } : {}),
      // Shaping rewrites results from their details: those must come back as objects.
      ...(call.format && call.groupOptions === null ? { encode: call.format } : {}),
    };
  }

  /** The caller's signal, plus a stop shortly before the deadline so the samples not reached come back ABORTED "deadline". */
  private callSignal(call: ScoreCall): { signal: AbortSignal; dispose(): void } {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const parent = call.signal;
    const onCancel = () => controller.abort(typeof parent?.reason === 'string' ? parent.reason : 'cancelled');
    if (parent?.aborted) onCancel();
    else parent?.addEventListener('abort', onCancel, { once: true });
    let timer: NodeJS.Timeout | undefined;
    if (call.deadline !== undefined && Number.isFinite(call.deadline)) {
      const budget = call.deadline - Date.now();
      const stopIn = budget - stopMargin(budget, call.finishReserveMs ?? 0);
      if (stopIn <= 0) controller.abort('deadline');
      else timer = setTimeout(() => controller.abort('deadline'), stopIn);
    }
    return {
      signal: controller.signal,
      dispose() {
        if (timer) clearTimeout(timer);
        parent?.removeEventListener('abort', onCancel);
      },
    };
  }
}

/**
 * What finishing a batch costs a transport once work stops: a fixed part (stopping running pool
 * threads, event-loop stalls; learnt from small batches cut short) and a part per result (settling,
 * shaping, encoding on the main thread; learnt from large replies). The deadline margin reserves
 * twice the estimate, so a loaded machine still answers in time.
 */
export class FinishCost {
  private msPerResult: number;
  private stoppedMsPerResult = 0;
  private fixedMs: number;

  /**
   * Starts from 0.03 ms per result (a 4,096-result math reply took 77 ms to encode with proto-loader
   * on the reference machine, and aborting and counting a batch's results costs about as much again)
   * and 100 ms fixed (stopping two pool threads and starting their replacements).
   */
  constructor(initialMsPerResult = 0.03, initialFixedMs = 100) {
    this.msPerResult = initialMsPerResult;
    this.fixedMs = initialFixedMs;
  }

  /**
   * `stopped`: the batch was cut short (deadline, cancel), which costs more than a batch that ran to
   * its end (aborting queued and running pool work); the estimate covers the dearer of the two.
   * Small batches cut short teach the fixed part; large ones the part per result.
   */
  record(results: number, ms: number, stopped: boolean): void {
    if (results < 256) {
      if (stopped) this.fixedMs = 0.7 * this.fixedMs + 0.3 * Math.max(0, ms - results * this.perResult());
      return;
    }
    const per = Math.max(0, ms - (stopped ? this.fixedMs : 0)) / results;
    if (stopped) this.stoppedMsPerResult = this.stoppedMsPerResult === 0 ? per : 0.7 * this.stoppedMsPerResult + 0.3 * per;
    else this.msPerResult = 0.7 * this.msPerResult + 0.3 * per;
  }

  private perResult(): number {
    return Math.max(this.msPerResult, this.stoppedMsPerResult);
  }

  /** The time to set aside before the deadline for a batch of `results`. */
  reserveMs(results: number): number {
    return 2 * (this.fixedMs + results * this.perResult());
  }
}
