import { labelCell, type LabelCell, type LabelRoute } from '../../core/label-cell';
import express, { type Request, type Response, type Router } from 'express';
import { Counter, type Registry } from 'prom-client';
import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import { invalid, type Sample, type ScoreResult } from '../../core/sample';
import { locateResponse, type LocatedResponse } from './query-response';
import { floatLiteral } from '../wire/json';
import { failureOf, floatList, type TrainerFailure } from './trainer-answer';
import type { TrainerDefaults } from './config';

/** Scores the samples of one HTTP request; null once a refusal or failure has been answered (the gateway's). */
export type ScoreFor = (req: Request, res: Response, samples: readonly Sample[], api: string) => Promise<ScoreResult[] | null>;

/**
 * Trainers' own remote-reward protocols, so that adopting Verdict is a URL in the trainer's config:
 *
 *   OpenRLHF  --reward.remote_url (before 0.10.4 --remote_rm_url)  http://verdict:8080/openrlhf/<verifier>   {"query","prompts","labels"} → {"rewards","scores","extra_logs"}
 *   slime     --rm-type remote_rm --rm-url http://verdict:8080/slime/<verifier>   {"prompt","response","label"} → a bare float
 *
 * Query parameters: label_field (a plain label's field), chat_format (the template of a string
 * prompt), tool_format (the tool-call format of a text trajectory).
 *
 * Neither protocol has a way to say "this sample could not be scored", and both treat a non-2xx answer
 * as a failed attempt that they retry (OpenRLHF 5×, slime 10× with backoff) before giving up loudly
 * (OpenRLHF leaves the reward unset, slime fails the rollout). A stand-in number would be a silently
 * wrong reward, so a batch with an unscored sample is an HTTP error (trainer-answer.ts: 501 for a
 * service this server lacks, 503 for infrastructure noise, 422 for a malformed sample) whose reason
 * phrase carries the reason, since the trainers' logs print only the status line.
 */


/** A trainer's label → (verifier, Verdict label), by the label-cell rule the CLI's mapping uses too. */
export function trainerLabel(raw: Json | undefined, route: LabelRoute, path: string): LabelCell {
  return labelCell(raw, route, path, '?label_field=<field> on the URL');
}

/** A special token at the very end: <|im_end|>, <|endoftext|>, <|eot_id|>, </s>, DeepSeek's full-width <｜end▁of▁sentence｜>, … */
const SPECIAL_TOKEN_AT_END = /(?:<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>|<\/s>)$/;
/** Longest special token looked for; the regex only ever sees this many characters (no quadratic scans). */
const MAX_SPECIAL_TOKEN = 64;

/**
 * The text without the run of special tokens (and the whitespace among them) that a decode with
 * skip_special_tokens=False leaves at the end; unchanged when it does not end with one. Special tokens
 * inside the text stay. Linear in the text: a response can be 4 Mi characters of anything.
 */
export function withoutTrailingSpecialTokens(text: string): string {
  let end = text.length;
  let stripped = false;
  for (;;) {
    let e = end;
    while (e > 0 && /\s/.test(text[e - 1]!)) e--;
    const token = SPECIAL_TOKEN_AT_END.exec(text.slice(Math.max(0, e - MAX_SPECIAL_TOKEN), e));
    if (token === null) return stripped ? text.slice(0, e) : text;
    end = e - token[0].length;
    stripped = true;
  }
}

/**
 * OpenRLHF's `query` is prompt + response decoded with special tokens: the response is located after
 * the prompt (query-response.ts says how), without the trailing special tokens.
 */
export function responseFromQuery(query: string, prompt: string | undefined): LocatedResponse {
  const located = locateResponse(query, prompt);
  return located.ok ? { ...located, response: withoutTrailingSpecialTokens(located.response) } : located;
}

function routeOf(req: Request): LabelRoute {
  const field = req.query['label_field'];
  return {
    verifier: typeof req.params['verifier'] === 'string' ? req.params['verifier'] : '',
    labelField: typeof field === 'string' && field !== '' ? field : null,
  };
}

/**
 * `?chat_format=` and `?tool_format=` (else the config's `trainers:` defaults) become
 * `metadata.chat_format` / `metadata.tool_format`: how verifiers read the string prompt back into
 * messages (core/transcript.ts) and count the tool calls of a trajectory sent as text
 * (verifiers/search/tool-text.ts). Checked by the verifiers that read them, so that every protocol
 * reports a wrong value the same way (INVALID naming the metadata key).
 */
function formatsOf(req: Request, defaults: TrainerDefaults): JsonObject {
  const out: JsonObject = { ...defaults };
  for (const key of ['chat_format', 'tool_format']) {
    const value = req.query[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

/** A sample, or the INVALID result its trainer fields already decide. */
type Mapped = { sample: Sample } | { error: string; verifier: string };

/** Scores the mapped samples; the ones that could not be mapped get their INVALID result in place. */
async function scoreMapped(scoreFor: ScoreFor, req: Request, res: Response, mapped: readonly Mapped[], api: string): Promise<ScoreResult[] | null> {
  const samples = mapped.flatMap((m) => ('sample' in m ? [m.sample] : []));
  const scored = await scoreFor(req, res, samples, api);
  if (!scored) return null;
  let next = 0;
  return mapped.map((m, index) => {
    if ('sample' in m) return { ...scored[next++]!, index };
    const outcome = invalid(m.error);
    return { id: '', index, status: outcome.status, reason: outcome.reason, verifier: m.verifier, verifierVersion: '', details: {} };
  });
}

/** Answers a batch with an unscored sample: the status line carries the reason, the body every sample's. */
function sendFailure(res: Response, failure: TrainerFailure, api: string, count: number, log: TrainerLog): void {
  log(`${api}: ${failure.status} ${failure.reasonPhrase} (${count} sample${count === 1 ? '' : 's'} in the request)`);
  if (failure.retryAfter) res.setHeader('Retry-After', '1');
  res.statusMessage = failure.reasonPhrase;
  res.status(failure.status).json(failure.body);
}

/** A JSON body written by hand, so that rewards keep their float form (`1.0`). */
function sendJsonText(res: Response, text: string): void {
  res.type('application/json').send(text);
}

function badRequest(res: Response, message: string): void {
  res.status(400).json({ error: { code: 'INVALID_ARGUMENT', message } });
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function sample(id: string, verifier: string, response: string, label: JsonObject, metadata: JsonObject): Sample {
  return { id, verifier, response, label, groupId: '', responseTokens: 0, metadata };
}

/** OpenRLHF `--reward.remote_url`: parallel lists in, `rewards` (and the same values as `scores`) out. */
function openrlhf(scoreFor: ScoreFor, observe: TrainerObserver) {
  return async (req: Request, res: Response) => {
    const body: unknown = req.body;
    if (!isJsonObject(body)) return badRequest(res, 'request: expected a JSON object with "query"');
    const { query, prompts, labels } = body;
    if (!stringList(query)) return badRequest(res, 'query: expected a list of strings');
    if (prompts !== undefined && !(stringList(prompts) && prompts.length === query.length)) {
      return badRequest(res, `prompts: expected a list of ${query.length} strings, one per query`);
    }
    if (labels !== undefined && !(Array.isArray(labels) && labels.length === query.length)) {
      return badRequest(res, `labels: expected a list of ${query.length} labels, one per query`);
    }
    const route = routeOf(req);
    const formats = formatsOf(req, observe.defaults);
    // `--reward.remote_url a,b` splits each batch over the URLs: one sample per request leaves the others empty.
    if (query.length === 0) observe.emptyRequest('openrlhf');
    const mapped = query.map((q, i): Mapped => {
      const label = trainerLabel(labels?.[i], route, `labels[${i}]`);
      if (!label.ok) return { error: label.error, verifier: route.verifier };
      const prompt = prompts?.[i];
      const located = responseFromQuery(q, prompt);
      if (!located.ok) return { error: `query[${i}]: ${located.error}`, verifier: label.verifier };
      return { sample: sample(String(i), label.verifier, located.response, label.label, prompt === undefined ? formats : { ...formats, prompt }) };
    });
    const results = await scoreMapped(scoreFor, req, res, mapped, 'http.openrlhf');
    if (!results) return;
    const failure = failureOf(results);
    if (failure) return sendFailure(res, failure, 'http.openrlhf', results.length, observe.log);
    const rewards = floatList(results.map((r) => r.reward!));
    sendJsonText(res, `{"rewards":${rewards},"scores":${rewards},"extra_logs":{}}`);
  };
}

/** slime `--rm-type remote_rm`: one sample per request, the bare reward back. */
function slime(scoreFor: ScoreFor, observe: TrainerObserver) {
  return async (req: Request, res: Response) => {
    const body: unknown = req.body;
    if (!isJsonObject(body)) return badRequest(res, 'request: expected a JSON object with "prompt", "response" and "label"');
    const { prompt, response, label: rawLabel } = body;
    if (typeof response !== 'string') return badRequest(res, 'response: expected a string');
    if (prompt !== undefined && prompt !== null && typeof prompt !== 'string' && !Array.isArray(prompt)) {
      return badRequest(res, 'prompt: expected a string or a list of chat messages');
    }
    const route = routeOf(req);
    const label = trainerLabel(rawLabel, route, 'label');
    // A chat prompt is the conversation before the response, as verifiers read metadata.messages; a
    // string prompt (--apply-chat-template) is read back into messages in the format ?chat_format= names.
    const formats = formatsOf(req, observe.defaults);
    const metadata: JsonObject = Array.isArray(prompt) ? { ...formats, messages: prompt } : typeof prompt === 'string' ? { ...formats, prompt } : formats;
    const mapped: Mapped = label.ok
      ? { sample: sample('0', label.verifier, response, label.label, metadata) }
      : { error: label.error, verifier: route.verifier };
    const results = await scoreMapped(scoreFor, req, res, [mapped], 'http.slime');
    if (!results) return;
    const failure = failureOf(results);
    if (failure) return sendFailure(res, failure, 'http.slime', 1, observe.log);
    sendJsonText(res, floatLiteral(results[0]!.reward!));
  };
}

/** One line for the server's log. */
export type TrainerLog = (line: string) => void;

/** What the routes report besides their answers. */
interface TrainerObserver {
  log: TrainerLog;
  emptyRequest(route: string): void;
  /** The config's `trainers:` defaults for what a URL does not name. */
  defaults: TrainerDefaults;
}

const stderrLog: TrainerLog = (line) => process.stderr.write(`verdict ${line}\n`);

/**
 * The trainer routes, mounted by the gateway. The verifier in the path is optional. With a metrics
 * registry, requests without samples are counted (`verdict_trainer_empty_requests_total{route}`).
 */
export function trainerRoutes(scoreFor: ScoreFor, maxBody: string, registry?: Registry, log: TrainerLog = stderrLog, defaults: TrainerDefaults = {}): Router {
  const empty = registry
    ? new Counter({
        name: 'verdict_trainer_empty_requests_total',
        help: 'Trainer-route requests without samples (OpenRLHF sends empty lists to every URL of --reward.remote_url a,b but the first)',
        labelNames: ['route'] as const,
        registers: [registry],
      })
    : null;
  const observe: TrainerObserver = { log, emptyRequest: (route) => empty?.inc({ route }), defaults };
  const router = express.Router();
  const json = express.json({ limit: maxBody, strict: false });
  router.post('/openrlhf{/:verifier}', json, openrlhf(scoreFor, observe));
  router.post('/slime{/:verifier}', json, slime(scoreFor, observe));
  return router;
}
