import type { Json, JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import type { JudgePort as Judge } from '../../core/ports/judge';
import { search } from '../../verifiers/search';
import { countToolCalls } from '../../verifiers/search/trajectory';
import { countTextToolCalls } from '../../verifiers/search/tool-text';
import { rig, type Rig } from '../judge/harness';

const verifier = search as AsyncVerifier;

function sample(response: string, label: JsonObject, metadata: JsonObject = {}): Sample {
  return { id: 's', verifier: 'search', response, label, groupId: '', responseTokens: 0, metadata };
}

/** Validates the label as the engine does, then scores with the given services. */
async function score(s: Sample, services: Services): Promise<Outcome> {
  const env = {
    signal: new AbortController().signal,
    services,
    compute: (): Promise<Json> => Promise.reject(new Error('search has no pool tasks')),
  };
  return scoreAsync(verifier, s, env);
}

const call = (id: string, name = 'web_search', args = '{"query":"capital of France"}') => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});
const result = (id: string, extra: JsonObject = {}) => ({ role: 'tool', tool_call_id: id, content: 'result text', ...extra });

/** A trajectory with two good calls (answered) and the given extra calls. */
function trajectory(final: string | null, extra: { calls?: JsonObject[]; results?: JsonObject[] } = {}): Json[] {
  const messages: Json[] = [
    { role: 'system', content: 'You are a research agent.' },
    { role: 'user', content: 'What is the capital of France?' },
    { role: 'assistant', content: '', tool_calls: [call('c1'), call('c2', 'web_scrape', '{"url":"https://x"}'), ...(extra.calls ?? [])] },
    result('c1'),
    result('c2'),
    ...(extra.results ?? []),
  ];
  if (final !== null) messages.push({ role: 'assistant', content: final });
  return messages;
}

const label = { question: 'What is the capital of France?', answer: 'Paris' };

describe('search verifier', () => {
  let r: Rig;
  let services: Services;
  beforeEach(async () => {
    r = await rig();
    services = { judges: new Map<string, Judge>([['search', r.client()]]) };
  });
  afterEach(async () => {
    await r.close();
  });

  describe('rule 1: no final answer, no judge', () => {
    it('gives 0 without a \\boxed{} and never calls the judge', async () => {
      const out = await score(sample('', label, { messages: trajectory('I think it is Paris.') }), services);
      expect(out).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
      expect(r.server.calls).toBe(0);
    });

    it('gives the budget penalty when the trajectory ran out of budget', async () => {
      const out = await score(sample('', label, { messages: trajectory(null), termination: 'max_tool_calls' }), services);
      expect(out).toMatchObject({ status: 'OK', reward: -0.1, reason: 'no_answer_budget' });
      expect(r.server.calls).toBe(0);
    });

    it('takes the penalty and budget reasons from the label', async () => {
      const custom = { ...label, budget_penalty: -0.3, budget_terminations: ['out_of_steps'] };
      const hit = await score(sample('', custom, { messages: trajectory(null), termination: 'out_of_steps' }), services);
      expect(hit).toMatchObject({ reward: -0.3 });
      const miss = await score(sample('', custom, { messages: trajectory(null), termination: 'max_tool_calls' }), services);
      expect(miss).toMatchObject({ reward: 0, reason: 'no_answer' });
    });

    it('treats an empty box and an unclosed <think> as no answer', async () => {
      const empty = await score(sample('\\boxed{ }', label, { messages: trajectory(null) }), services);
      expect(empty).toMatchObject({ reward: 0, reason: 'no_answer' });
      const unclosed = await score(sample('<think>the answer is \\boxed{Paris}', label, { messages: trajectory(null) }), services);
      expect(unclosed).toMatchObject({ reward: 0, reason: 'no_answer' });
      expect(r.server.calls).toBe(0);
    });

    it('needs no judge configured to score a missing answer', async () => {
      const out = await score(sample('no box', label, { messages: trajectory(null), termination: 'context_length' }), {});
      expect(out).toMatchObject({ status: 'OK', reward: -0.1 });
    });
  });

  describe('rule 2: at least two successful tool calls', () => {
    it('gives 0 with one successful call, without calling the judge', async () => {
      const messages: Json[] = [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '', tool_calls: [call('c1'), call('c2')] },
        result('c1'),
        result('c2', { status: 'error', content: 'rate limited by search backend' }),
        { role: 'assistant', content: '\\boxed{Paris}' },
      ];
      const out = await score(sample('', label, { messages }), services);
      expect(out).toMatchObject({ status: 'OK', reward: 0, reason: 'too_few_tool_calls' });
      expect(out.details['tool_calls']).toEqual({ total: 2, successful: 1, malformed: 0 });
      expect(r.server.calls).toBe(0);
    });

    it('uses explicit counts from the label or metadata', async () => {
      const byLabel = await score(sample('\\boxed{Paris}', { ...label, tool_calls: { total: 1, successful: 1, malformed: 0 } }), services);
      expect(byLabel).toMatchObject({ reward: 0, reason: 'too_few_tool_calls' });
      const byMeta = await score(sample('\\boxed{Paris}', label, { tool_calls: { total: 4, successful: 3, malformed: 1 } }), services);
      expect(byMeta).toMatchObject({ reason: 'judged', reward: 0.875 });
    });
  });

  describe("a trajectory sent as text, in the model's own tool-call format", () => {
    const hermesCall = (name: string, args: Json) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
    const glmCall = (name: string, args: Record<string, string>) =>
      `<tool_call>${name}\n${Object.entries(args).map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`).join('')}</tool_call>`;
    const toolResult = (text: string) => `<tool_response>\n${text}\n</tool_response>`;
    const formats = {
      hermes: { call: (q: string) => hermesCall('search', { query: q }), bad: '<tool_call>\n{"name": "search", "arguments": "not json"\n</tool_call>' },
      'glm4.5': { call: (q: string) => glmCall('search', { query: q }), bad: '<tool_call>search\n{"query": "x"}\n</tool_call>' },
    };

    it.each(Object.entries(formats))('%s: two answered calls are judged, one is gated, a malformed one scales', async (format, f) => {
      const two = `${f.call('Dune author')}\n${toolResult('Frank Herbert wrote Dune')}\n${f.call('Frank Herbert')}\n${toolResult('American author \\boxed{Lyon}')}\nSo: \\boxed{Paris}`;
      const judged = await score(sample(two, label, { tool_format: format }), services);
      expect(judged).toMatchObject({ status: 'OK', reward: 1, reason: 'judged' });
      expect(judged.details).toMatchObject({ tool_calls: { total: 2, successful: 2, malformed: 0 }, extracted: 'Paris' });

      const one = `${f.call('Dune author')}\n${toolResult('Frank Herbert')}\n\\boxed{Paris}`;
      expect(await score(sample(one, label, { tool_format: format }), services)).toMatchObject({ reward: 0, reason: 'too_few_tool_calls' });

      const withBad = `${f.call('a')}\n${toolResult('r1')}\n${f.bad}\n${toolResult('invalid call')}\n${f.call('b')}\n${toolResult('r3')}\n${f.call('c')}\n${toolResult('r4')}\n\\boxed{Paris}`;
      const scaled = await score(sample(withBad, label, { tool_format: format }), services);
      expect(scaled).toMatchObject({ status: 'OK', reward: 0.875, details: { tool_calls: { total: 4, successful: 3, malformed: 1 }, factor: 0.875 } });
    });

    it('a malformed GLM call with many arguments is read in one pass (no regex backtracking)', () => {
      // 60 pairs then stray text: a nested lazy regex needs ~2^60 steps to give up on this.
      const pairs = '<arg_key>a</arg_key>\n<arg_value>b</arg_value>\n'.repeat(60);
      expect(countTextToolCalls(`<tool_call>search\n${pairs}X</tool_call>`, 'glm4.5', null)).toEqual({ total: 1, successful: 0, malformed: 1 });
      expect(countTextToolCalls(`<tool_call>search\n${pairs}</tool_call>\n<tool_response>\nok\n</tool_response>`, 'glm4.5', null)).toEqual({ total: 1, successful: 1, malformed: 0 });
      // GLM-4.7 writes the first argument on the name's line.
      expect(countTextToolCalls('<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value></tool_call><tool_response>r</tool_response>', 'glm4.5', null)).toEqual({ total: 1, successful: 1, malformed: 0 });
    });

    it('the chat format implies the tool format: chatml → hermes, glm4.5 → glm4.5', async () => {
      const text = `${formats['glm4.5'].call('a')}\n${toolResult('r')}\n${formats['glm4.5'].call('b')}\n${toolResult('r')}\n\\boxed{Paris}`;
      expect(await score(sample(text, label, { chat_format: 'glm4.5' }), services)).toMatchObject({ reward: 1, reason: 'judged' });
      // Read as hermes, GLM's calls are malformed: the format is the configuration's, never a guess.
      expect((await score(sample(text, label, { chat_format: 'chatml' }), services)).details).toMatchObject({ tool_calls: { total: 2, successful: 0, malformed: 2 } });
    });

    it('with nothing that names how to count: INVALID naming metadata.tool_format, never a 0 by the gate', async () => {
      const out = await score(sample('\\boxed{Paris}', label), services);
      expect(out).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.tool_format: required to count/) });
      const llama = await score(sample('\\boxed{Paris}', label, { chat_format: 'llama3' }), services);
      expect(llama.reason).toMatch(/metadata\.chat_format "llama3" implies none/);
      expect(await score(sample('\\boxed{Paris}', label, { tool_format: 'xml' }), services)).toMatchObject({
        status: 'INVALID',
        reason: expect.stringMatching(/^metadata\.tool_format: /),
      });
      expect(r.server.calls).toBe(0);
    });
  });

  describe('rule 3: the judge grades on [0, 1]', () => {
    it('gives the judge score for a boxed answer in the final assistant message', async () => {
      const out = await score(sample('', label, { messages: trajectory('<think>checking</think>So: \\boxed{Paris}') }), services);
      expect(out).toMatchObject({ status: 'OK', reward: 1, reason: 'judged' });
      expect(out.details).toMatchObject({ extracted: 'Paris', judge_score: 1, factor: 1, judge_reasoning: 'exact match', judge_source: 'judge' });
      const prompt = r.server.requests[0]!.messages[0]!.content;
      expect(prompt).toContain('<question>\nWhat is the capital of France?\n</question>');
      expect(prompt).toContain('<response>\nParis\n</response>');
    });

    it('reads the final answer from the response field when given', async () => {
      const out = await score(sample('\\boxed{Lyon} then \\boxed{Paris}', label, { messages: trajectory(null) }), services);
      expect(out).toMatchObject({ reward: 1, details: { extracted: 'Paris' } });
    });

    it('gives partial credit for a list answer', async () => {
      const list = { question: 'Name the three largest French cities.', answer: ['Paris', 'Marseille', 'Lyon'] };
      const out = await score(sample('\\boxed{Paris, Lyon and Nice}', list, { messages: trajectory(null) }), services);
      expect(out.status).toBe('OK');
      expect(out.status === 'OK' && out.reward).toBeCloseTo(2 / 3, 10);
      expect(r.server.requests[0]!.messages[0]!.content).toContain('- Paris\n- Marseille\n- Lyon');
    });

    it('uses a prompt template from the label', async () => {
      const template = 'Q: {question}\n<correct_answer>{correct_answer}</correct_answer>\n<response>{response}</response>';
      const out = await score(sample('\\boxed{Paris}', { ...label, prompt_template: template }, { messages: trajectory(null) }), services);
      expect(out).toMatchObject({ reward: 1 });
      expect(r.server.requests[0]!.messages[0]!.content).toBe(
        'Q: What is the capital of France?\n<correct_answer>Paris</correct_answer>\n<response>Paris</response>',
      );
    });

    it('re-scoring the same answer is answered from the cache', async () => {
      const s = sample('\\boxed{Paris}', label, { messages: trajectory(null) });
      const first = await score(s, services);
      const again = await score(s, { judges: new Map<string, Judge>([['search', r.client()]]) });
      expect(again).toMatchObject({ status: 'OK', reward: (first as { reward: number }).reward, details: { judge_source: 'cache' } });
      expect(r.server.calls).toBe(1);
    });

    it('is ABORTED, never 0, when the judge keeps failing', async () => {
      for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'status', status: 503, shape: 'flat', message: 'The request queue is full.' });
      const out = await score(sample('\\boxed{Paris}', label, { messages: trajectory(null) }), services);
      expect(out).toMatchObject({ status: 'ABORTED', reason: 'judge_server_error', details: { judge_attempts: 3 } });
      expect('reward' in out).toBe(false);
    });

    it('is ABORTED judge_malformed when replies never fit the schema', async () => {
      for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'schema_violation' });
      const out = await score(sample('\\boxed{Paris}', label, { messages: trajectory(null) }), services);
      expect(out).toMatchObject({ status: 'ABORTED', reason: 'judge_malformed' });
    });

    it('is ABORTED service_unavailable when no search judge is configured', async () => {
      const out = await score(sample('\\boxed{Paris}', label, { messages: trajectory(null) }), {});
      expect(out).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
    });
  });

  describe('rule 4: malformed calls scale the reward down to ×0.5', () => {
    it('scales by 1 − 0.5 · malformed / total', async () => {
      const extra = { calls: [call('c3', 'web_search', '{"query": '), call('c4', '', '{}')], results: [result('c3'), result('c4')] };
      const out = await score(sample('\\boxed{Paris}', label, { messages: trajectory(null, extra) }), services);
      expect(out).toMatchObject({ status: 'OK', reason: 'judged', reward: 0.75, details: { factor: 0.75 } });
      expect(out.details['tool_calls']).toEqual({ total: 4, successful: 2, malformed: 2 });
    });

    it('reaches ×0.5 when every call is malformed (explicit counts)', async () => {
      const out = await score(sample('\\boxed{Paris}', { ...label, min_successful_calls: 0, tool_calls: { total: 3, successful: 0, malformed: 3 } }), services);
      expect(out).toMatchObject({ reward: 0.5, details: { factor: 0.5 } });
    });
  });

  describe('bad input is INVALID with a field path', () => {
    it('names a missing or mistyped label field', async () => {
      expect(await score(sample('\\boxed{Paris}', { question: 'q', answer: 3 }), services)).toMatchObject({
        status: 'INVALID',
        reason: 'label.answer: expected a string or a non-empty list of strings',
      });
      expect(await score(sample('\\boxed{Paris}', { question: 'q' }), services)).toMatchObject({ status: 'INVALID', reason: 'label.answer: required' });
    });

    it('names a bad message in the trajectory', async () => {
      const out = await score(sample('', label, { messages: [{ role: 'assistant', tool_calls: [{ id: 'x' }] }] }), services);
      expect(out).toMatchObject({ status: 'INVALID' });
      expect(out.reason).toMatch(/^metadata\.messages\[0\]\.tool_calls\[0\]\.function: /);
    });

    it('rejects inconsistent explicit counts', async () => {
      const out = await score(sample('\\boxed{Paris}', label, { tool_calls: { total: 1, successful: 2, malformed: 0 } }), services);
      expect(out).toMatchObject({ status: 'INVALID', reason: 'metadata.tool_calls.total: successful + malformed exceed total' });
    });

    it('rejects a prompt template without its placeholders', async () => {
      const out = await score(sample('\\boxed{Paris}', { ...label, prompt_template: 'grade {response}' }), services);
      expect(out).toMatchObject({ status: 'INVALID' });
      expect(out.reason).toMatch(/^label\.prompt_template: must contain/);
    });
  });
});

describe('tool-call counting', () => {
  it('marks failure by status, is_error, isError or error, never by content', () => {
    const messages = [
      { role: 'assistant', tool_calls: [call('a'), call('b'), call('c'), call('d'), call('e'), call('f')] },
      result('a', { status: 'error' }),
      result('b', { is_error: true }),
      result('c', { isError: true }),
      result('d', { error: 'timeout' }),
      result('e', { content: 'Error 404: page not found', status: 'success' }),
      // f is never answered: it did not run.
    ];
    expect(countToolCalls(messages)).toEqual({ total: 6, successful: 1, malformed: 0 });
  });

  it('matches results without ids to the oldest unanswered call', () => {
    const messages = [
      { role: 'assistant', tool_calls: [call('a'), call('b')] },
      { role: 'tool', content: 'r1' },
      { role: 'tool', content: 'r2', status: 'error' },
    ];
    expect(countToolCalls(messages)).toEqual({ total: 2, successful: 1, malformed: 0 });
  });

  it('counts calls to tools not offered, and non-object arguments, as malformed', () => {
    const messages = [
      { role: 'assistant', tool_calls: [call('a'), call('b', 'rm_rf'), call('c', 'web_search', '[1,2]'), { id: 'd', function: { name: 'web_search', arguments: { query: 'x' } } }] },
      result('a'),
      result('b'),
      result('c'),
      result('d'),
    ];
    expect(countToolCalls(messages, ['web_search', { type: 'function', function: { name: 'web_scrape' } }])).toEqual({
      total: 4,
      successful: 2,
      malformed: 2,
    });
  });
});
