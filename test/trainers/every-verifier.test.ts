import path from 'node:path';
import type { ChatMessage } from '../../core/chat';
import { parseConfig } from '../../services/config';
import { loadChatTemplate } from '../../services/reward-model/chat-template';
import { tagged, type FakeOpenAIServer } from '../fakes/fake-openai-server';
import type { FakeSglangServer } from '../fakes/fake-sglang-server';
import type { FakeVllmServer } from '../fakes/fake-vllm-server';
import { renderings, templatesDir } from '../fixtures/chat-templates';
import { startModelBackedServer, type ModelBackedServer } from '../fixtures/model-servers';
import { startTestServer } from '../fixtures/server';

/**
 * `rlhf`, `if` and `search` over the trainers' own protocols: a string prompt (slime's
 * --apply-chat-template, OpenRLHF's prompts) read back into messages by its template, and a text
 * trajectory's tool calls counted in the model's own format.
 */

const FORMATS: Array<[string, string, string]> = [
  ['qwen3.jinja', 'chatml', '<|im_end|>'],
  ['glm-4.5.jinja', 'glm4.5', '<|user|>'],
  ['llama-3.jinja', 'llama3', '<|eot_id|>'],
  ['deepseek-r1.jinja', 'deepseek-r1', '<｜end▁of▁sentence｜>'],
];
const dialogue = (template: string) => renderings.find((r) => r.template === template && r.name === 'multi-turn-prompt')!;

describe('every verifier from every trainer route', () => {
  let models: ModelBackedServer;
  let base: string;
  let sglang: FakeSglangServer;
  let vllm: FakeVllmServer;
  let judge: FakeOpenAIServer;
  const qwen3 = loadChatTemplate('qwen3');

  beforeAll(async () => {
    models = await startModelBackedServer();
    ({ sglang, vllm, judge } = models);
    base = `http://127.0.0.1:${models.server.httpPort}`;
  });
  afterAll(() => models.close());

  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, statusText: res.statusText, text: await res.text() };
  };
  const lastText = (fake: FakeSglangServer | FakeVllmServer): string => {
    const body = fake.requests.at(-1)!.body as { text?: string | string[]; messages?: ChatMessage[] };
    if (body.messages) return qwen3.render(body.messages);
    return Array.isArray(body.text) ? body.text.at(-1)! : body.text!;
  };

  describe('rlhf from a string prompt of each template', () => {
    it.each(FORMATS)('%s (chat_format=%s): slime and OpenRLHF score the dialogue the prompt holds', async (template, format, end) => {
      const r = dialogue(template);
      const reply = 'Try rice cakes. [[rm:1.5]]';
      // The reward model sees the dialogue in its own (Qwen3) template, whatever template the policy used.
      const expected = qwen3.render([...r.messages, { role: 'assistant', content: reply }]);

      const slime = await post(`/slime/rlhf?chat_format=${format}`, { prompt: r.rendered, response: reply, label: { endpoint: 'sglang' } });
      expect([slime.status, slime.text]).toEqual([200, '1.5']);
      expect(lastText(sglang)).toBe(expected);

      const openrlhf = await post(`/openrlhf/rlhf?chat_format=${format}`, { query: [`${r.rendered}${reply}${end}`], prompts: [r.rendered], labels: ['{"endpoint":"vllm"}'] });
      expect([openrlhf.status, openrlhf.text]).toEqual([200, '{"rewards":[1.5],"scores":[1.5],"extra_logs":{}}']);
      expect(lastText(vllm)).toBe(expected);
    });

    it('a string prompt without chat_format, or one its template does not explain, is 422 naming the key', async () => {
      const glm = dialogue('glm-4.5.jinja').rendered;
      const none = await post('/slime/rlhf', { prompt: glm, response: 'ok', label: {} });
      expect(none.status).toBe(422);
      expect(none.statusText).toMatch(/^metadata\.chat_format: required to read the string metadata\.prompt/);
      const wrong = await post('/slime/rlhf?chat_format=llama3', { prompt: glm, response: 'ok', label: {} });
      expect(wrong.status).toBe(422);
      expect(wrong.statusText).toMatch(/^metadata\.prompt: not a llama3 conversation: .*metadata\.chat_format/);
      const unknown = await post('/openrlhf/rlhf?chat_format=qwen', { query: [`${glm}ok`], prompts: [glm], labels: [null] });
      expect(unknown.statusText).toMatch(/^metadata\.chat_format: unknown format "qwen"/);
    });
  });

  it('an if judge rubric about an earlier turn sees the dialogue of a string prompt', async () => {
    const r = dialogue('llama-3.jinja');
    const label = { rubrics: [{ kind: 'judge', question: 'Does the snack respect the allergy the user stated?' }] };
    const safe = await post('/slime/if?chat_format=llama3', { prompt: r.rendered, response: 'Rice cakes with hummus.', label });
    expect([safe.status, safe.text]).toEqual([200, '1.0']);
    const unsafe = await post('/slime/if?chat_format=llama3', { prompt: r.rendered, response: 'A peanut butter cup.', label });
    expect([unsafe.status, unsafe.text]).toEqual([200, '0.0']);
    const conversation = tagged(judge.requests.at(-1)!, 'conversation')!;
    expect(conversation).toContain('[turn 1: user]\nI am allergic to peanuts.');
    expect(conversation).toContain('[turn 3: user]\nSuggest a snack « sans » nuts.');
  });

  it('if with constraint rubrics only reads no prompt: a string prompt needs no chat_format', async () => {
    const r = dialogue('glm-4.5.jinja');
    const label = { rubrics: [{ kind: 'constraint', id: 'punctuation:no_comma' }] };
    const res = await post('/slime/if', { prompt: r.rendered, response: 'Rice cakes and fruit.', label });
    expect([res.status, res.text]).toEqual([200, '1.0']);
    const judged = await post('/slime/if', { prompt: r.rendered, response: 'Rice cakes.', label: { rubrics: [{ kind: 'judge', question: 'Safe?' }] } });
    expect(judged.status).toBe(422);
    expect(judged.statusText).toMatch(/^metadata\.chat_format: required/);
  });

  describe('search with a trajectory in each tool-call format', () => {
    const label = { question: 'Who wrote Dune?', answer: 'Frank Herbert' };
    const hermes = (q: string) => `<tool_call>\n{"name": "search", "arguments": {"query": "${q}"}}\n</tool_call>`;
    const glm = (q: string) => `<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>${q}</arg_value>\n</tool_call>`;
    const result = (text: string) => `<tool_response>\n${text}\n</tool_response>`;
    // As the rollouts splice them: the policy's turns and the environment's results, in each template's markup.
    const qwenTurns = (calls: string[], answer: string) =>
      calls.map((c, i) => `${c}<|im_end|>\n<|im_start|>user\n${result(`page ${i}`)}<|im_end|>\n<|im_start|>assistant\n`).join('') + answer;
    const glmTurns = (calls: string[], answer: string) =>
      calls.map((c, i) => `\n${c}<|observation|>\n${result(`page ${i}`)}<|assistant|>\n<think></think>`).join('') + `\n${answer}`;
    const cases: Array<[string, string, (calls: string[], answer: string) => string, (q: string) => string, string]> = [
      ['hermes', 'tool_format=hermes', qwenTurns, hermes, '<tool_call>\n{"name": "search", "arguments": {"query": \n</tool_call>'],
      ['glm4.5', 'chat_format=glm4.5', glmTurns, glm, '<tool_call>search {"query": "x"}</tool_call>'],
    ];

    it.each(cases)('%s over slime (%s): 2 calls judged, 1 call gated, a malformed call scales', async (_, query, turns, call, bad) => {
      const two = await post(`/slime/search?${query}`, { prompt: 'Who wrote Dune?', response: turns([call('Dune'), call('Herbert')], '\\boxed{Frank Herbert}'), label });
      expect([two.status, two.text]).toEqual([200, '1.0']);
      const one = await post(`/slime/search?${query}`, { prompt: 'Who wrote Dune?', response: turns([call('Dune')], '\\boxed{Frank Herbert}'), label });
      expect([one.status, one.text]).toEqual([200, '0.0']);
      const four = await post(`/slime/search?${query}`, {
        prompt: 'Who wrote Dune?',
        response: turns([call('a'), bad, call('b'), call('c')], '\\boxed{Frank Herbert}'),
        label,
      });
      expect([four.status, four.text]).toEqual([200, '0.875']);
    });

    it('OpenRLHF: the calls of the located response count, in the format the chat format implies', async () => {
      const prompt = '[gMASK]<sop><|user|>\nWho wrote Dune?<|assistant|>';
      const response = glmTurns([glm('Dune'), glm('Herbert')], '\\boxed{Frank Herbert}');
      const res = await post('/openrlhf/search?chat_format=glm4.5', { query: [`${prompt}${response}<|user|>`], prompts: [prompt], labels: [label] });
      expect([res.status, res.text]).toEqual([200, '{"rewards":[1.0],"scores":[1.0],"extra_logs":{}}']);
    });

    it('OpenAI-style messages with tool_calls (slime chat prompt) still count', async () => {
      const messages = [
        { role: 'user', content: 'Who wrote Dune?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'search', arguments: '{"q":"Dune"}' } }] },
        { role: 'tool', tool_call_id: 'a', content: 'Frank Herbert' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'b', type: 'function', function: { name: 'search', arguments: '{"q":"Herbert"}' } }] },
        { role: 'tool', tool_call_id: 'b', content: 'American author' },
      ];
      const res = await post('/slime/search', { prompt: messages, response: '\\boxed{Frank Herbert}', label });
      expect([res.status, res.text]).toEqual([200, '1.0']);
    });

    it('a text trajectory with no format named is 422 naming metadata.tool_format, not a 0 by the gate', async () => {
      const res = await post('/slime/search', { prompt: 'Who wrote Dune?', response: qwenTurns([hermes('Dune'), hermes('x')], '\\boxed{Frank Herbert}'), label });
      expect(res.status).toBe(422);
      expect(res.statusText).toMatch(/^metadata\.tool_format: required to count the tool calls/);
    });
  });
});

describe('trainers: config defaults for what the URL does not name', () => {
  const label = { question: 'Who wrote Dune?', answer: 'Frank Herbert' };
  const glmTrajectory = '\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Dune</arg_value>\n</tool_call><|observation|>\n<tool_response>\npage\n</tool_response><|assistant|>\n<think></think>\n\\boxed{Frank Herbert}';

  it("trainers.chatFormat as the policy's template file: its markers give the format, and the tool format it implies", async () => {
    const server = await startTestServer({ workers: 1, config: parseConfig({ trainers: { chatFormat: path.join(templatesDir, 'glm-4.5.jinja') } }) });
    try {
      const post = (route: string, body: unknown) =>
        fetch(`http://127.0.0.1:${server.httpPort}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // One well-formed GLM call, counted as such: the gate's 0, no judge needed.
      const gated = await post('/slime/search', { prompt: 'q', response: glmTrajectory, label });
      expect([gated.status, await gated.text()]).toEqual([200, '0.0']);
      // The URL still wins: read as hermes, the GLM call is malformed (and the judge is then asked: not configured here).
      const hermes = await post('/slime/search?tool_format=hermes&chat_format=chatml', { prompt: 'q', response: glmTrajectory, label: { ...label, min_successful_calls: 0 } });
      expect(hermes.status).toBe(501);
    } finally {
      await server.shutdown();
    }
  });

  it('a template file that cannot say its format, or an unknown name, refuses to start naming trainers.chatFormat', async () => {
    await expect(startTestServer({ config: parseConfig({ trainers: { chatFormat: 'qwen' } }, 'verdict.yaml') })).rejects.toThrow(
      /^verdict\.yaml\.trainers\.chatFormat: unknown format "qwen"/,
    );
    await expect(startTestServer({ config: parseConfig({ trainers: { chatFormat: '/nonexistent/t.jinja' } }) })).rejects.toThrow(/^config\.trainers\.chatFormat: cannot read/);
    expect(() => parseConfig({ trainers: { toolFormat: 'xml' } }, 'verdict.yaml')).toThrow(/^verdict\.yaml\.trainers\.toolFormat: /);
  });
});
