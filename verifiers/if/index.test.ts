import type { Json, JsonObject } from '../../core/json';
import type { JudgePort, JudgeRequest, JudgeResult } from '../../core/ports/judge';
import type { JsIsolatePort } from '../../core/ports/js-isolate';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { ifVerifier } from '.';

/** Scores as the engine does, the constraints task run in this thread instead of on the pool. */
function score(response: string, label: JsonObject, services: Services = {}, metadata: JsonObject = {}): Promise<Outcome> {
  const verifier = ifVerifier as AsyncVerifier;
  const sample: Sample = { id: 's', verifier: 'if', response, label, groupId: '', responseTokens: 0, metadata };
  return scoreAsync(verifier, sample, {
    signal: new AbortController().signal,
    services,
    compute: async (task: string, payload: Json) => verifier.tasks![task]!(JSON.parse(JSON.stringify(payload)) as Json),
  });
}

/** An isolate that answers each source from `answers`, recording the sources it ran. */
function isolate(answers: Record<string, Awaited<ReturnType<JsIsolatePort['call']>>>, ran: string[] = []): JsIsolatePort {
  return {
    call: async ({ source }) => {
      ran.push(source);
      const a = answers[source];
      if (!a) throw new Error(`no answer for ${source}`);
      return a;
    },
  };
}

/** A judge that answers rubrics in turn from `verdicts`, recording the rubrics it was asked. */
function judge(verdicts: Array<{ satisfied: boolean; reason: string }>, asked: string[] = []): ReadonlyMap<string, JudgePort> {
  const port: JudgePort = {
    name: 'if',
    model: 'fake',
    judge: async <T>(request: JudgeRequest<T>): Promise<JudgeResult<T>> => {
      asked.push(/<rubric>\n([^\n]*)\n<\/rubric>/.exec(request.messages[0]!.content)![1]!);
      const value = verdicts[asked.length - 1];
      if (!value) return { ok: false, kind: 'server_error', message: 'HTTP 500', attempts: 3 };
      return { ok: true, value: value as T, source: 'judge', attempts: 1 };
    },
  };
  return new Map([['if', port]]);
}

const noComma = { kind: 'constraint', id: 'punctuation:no_comma' };
const js = (source: string) => ({ kind: 'js', source });

describe('if verifier: how the rubric kinds combine', () => {
  it('reports a code rubric that does not compile as INVALID even when a constraint already failed', async () => {
    const services = { jsIsolate: isolate({ broken: { kind: 'compile_error', error: 'SyntaxError' } }) };
    expect(await score('a, b', { rubrics: [noComma, js('broken')] }, services)).toEqual({
      status: 'INVALID',
      reason: 'label.rubrics[1].source: does not compile: SyntaxError',
      details: {},
    });
  });

  it('names the missing service, and the rubric whose machinery failed', async () => {
    expect(await score('x', { rubrics: [{ kind: 'python', source: 'def check(r, m): return True' }] })).toMatchObject({
      status: 'ABORTED',
      reason: 'service_unavailable',
      details: { service: 'sandbox' },
    });
    const failing: JsIsolatePort = { call: async () => Promise.reject(new Error('isolate crashed')) };
    expect(await score('x', { rubrics: [noComma, js('ok')] }, { jsIsolate: failing })).toEqual({
      status: 'ABORTED',
      reason: 'js_isolate_error',
      details: { rubric: 1, error: 'isolate crashed' },
    });
  });

  it('records each code rubric\'s verdict beside the constraints', async () => {
    const services = { jsIsolate: isolate({ yes: { kind: 'returned', value: true }, no: { kind: 'returned', value: false } }) };
    const r = await score('no commas', { rubrics: [noComma, js('yes'), js('no')] }, services);
    expect(r).toEqual({
      status: 'OK',
      reward: 0,
      reason: 'rubric_failed',
      details: {
        mode: 'strict',
        rubrics: [
          { index: 0, kind: 'constraint', id: 'punctuation:no_comma', verdict: 'pass' },
          { index: 1, kind: 'js', verdict: 'pass' },
          { index: 2, kind: 'js', verdict: 'fail', reason: 'the rubric function returned false' },
        ],
      },
    });
  });

  it('asks the judge only when everything before passed, and marks its rubrics skipped otherwise', async () => {
    const asked: string[] = [];
    const label = { rubrics: [noComma, { kind: 'judge', question: 'Is it polite?' }] };
    const failed = await score('no, thanks', label, { judges: judge([{ satisfied: true, reason: '' }], asked) });
    expect(failed).toMatchObject({ reward: 0, reason: 'rubric_failed', details: { rubrics: [{ verdict: 'fail' }, { kind: 'judge', verdict: 'skipped' }] } });
    expect(asked).toEqual([]);
    const passed = await score('Thank you kindly', label, { judges: judge([{ satisfied: true, reason: 'polite' }], asked) });
    expect(passed).toMatchObject({ reward: 1, reason: 'all_rubrics_passed', details: { rubrics: [{ verdict: 'pass' }, { question: 'Is it polite?', verdict: 'pass' }] } });
    expect(asked).toEqual(['Is it polite?']);
  });

  it('stops at the first judge rubric not satisfied, and aborts on a judge that gives up', async () => {
    const asked: string[] = [];
    const label = { rubrics: [{ kind: 'judge', question: 'Q1' }, { kind: 'judge', question: 'Q2' }, { kind: 'judge', question: 'Q3' }] };
    const r = await score('text', label, { judges: judge([{ satisfied: true, reason: '' }, { satisfied: false, reason: 'rude' }], asked) });
    expect(asked).toEqual(['Q1', 'Q2']);
    expect(r).toMatchObject({
      reward: 0,
      details: { rubrics: [{ verdict: 'pass' }, { verdict: 'fail', reason: 'rude' }, { verdict: 'skipped' }] },
    });
    expect(await score('text', label, { judges: judge([]) })).toMatchObject({ status: 'ABORTED', reason: 'judge_server_error' });
    expect(await score('text', label)).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
  });

  it('grades the text after </think>, stripped; reads the conversation only when a rubric is shown it', async () => {
    expect(await score('<think>a, b</think>\n  fine  ', { rubrics: [noComma] })).toMatchObject({ reward: 1 });
    // A malformed prompt does not matter to constraint rubrics, which never see it…
    expect(await score('fine', { rubrics: [noComma] }, {}, { prompt: 42 })).toMatchObject({ status: 'OK', reward: 1 });
    // …but messages sent are always checked.
    expect(await score('fine', { rubrics: [noComma] }, {}, { messages: [{ content: 'hi' }] })).toMatchObject({ status: 'INVALID' });
  });
});
