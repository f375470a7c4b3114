import { reasonPhrase } from '../../services/http/trainer-answer';
import { floatLiteral } from '../../services/wire/json';
import { responseFromQuery, trainerLabel } from '../../services/http/trainers';
import type { RunningServer } from '../../services/server';
import { sample } from '../fixtures/samples';
import { startTestServer } from '../fixtures/server';
import { ABORTING_VERIFIERS } from '../python-client/aborting-registry';

describe('trainer labels → verifier and Verdict label', () => {
  const route = { verifier: 'qa', labelField: null };

  it('a JSON object (or a string holding one) is the label; its verifier key picks the verifier', () => {
    expect(trainerLabel({ choice: 'C' }, route, 'labels[0]')).toEqual({ ok: true, verifier: 'qa', label: { choice: 'C' } });
    expect(trainerLabel('{"verifier":"math","gold":"42"}', route, 'labels[0]')).toEqual({ ok: true, verifier: 'math', label: { gold: '42' } });
    expect(trainerLabel('{"gold":', route, 'labels[2]')).toEqual({ ok: false, error: 'labels[2]: looks like a JSON object but does not parse' });
    expect(trainerLabel({ verifier: 7 }, route, 'label')).toEqual({ ok: false, error: 'label.verifier: expected string, received number' });
  });

  it('a plain value fills the route label field, wrapped in a list for a field ending in []', () => {
    expect(trainerLabel('42', { verifier: 'math', labelField: 'gold' }, 'label')).toEqual({ ok: true, verifier: 'math', label: { gold: '42' } });
    expect(trainerLabel('Paris', { verifier: 'qa', labelField: 'answers[]' }, 'label')).toEqual({ ok: true, verifier: 'qa', label: { answers: ['Paris'] } });
    expect(trainerLabel(['a', 'b'], { verifier: 'qa', labelField: 'answers[]' }, 'label')).toEqual({ ok: true, verifier: 'qa', label: { answers: ['a', 'b'] } });
    expect(trainerLabel('C', route, 'labels[1]')).toEqual({
      ok: false,
      error: 'labels[1]: a plain label (string) needs a label field: ?label_field=<field> on the URL, or a JSON object label',
    });
  });

  it("a label object's null fields are absent ones (a struct column's rows: the union of the keys, null where a row has none)", () => {
    const row = { verifier: null, gold: '42', choice: null, task: { tests: { 'test.sh': 'x', 'test_outputs.py': null } }, rubrics: [{ id: 'a', kwargs: null }, null] };
    expect(trainerLabel(row, { verifier: 'math', labelField: null }, 'labels[0]')).toEqual({
      ok: true,
      verifier: 'math',
      label: { gold: '42', task: { tests: { 'test.sh': 'x' } }, rubrics: [{ id: 'a' }, null] },
    });
    expect(trainerLabel('{"verifier":"qa","choice":"C","answers":null}', route, 'label')).toEqual({ ok: true, verifier: 'qa', label: { choice: 'C' } });
    // A "__proto__" key stays a field (for the schema to refuse), not the prototype.
    const proto = trainerLabel('{"__proto__":{"gold":"1"},"x":null}', route, 'label');
    expect(proto.ok && Object.keys(proto.label)).toEqual(['__proto__']);
  });

  it('null is an empty label, for the verifier schema to judge', () => {
    expect(trainerLabel(null, route, 'label')).toEqual({ ok: true, verifier: 'qa', label: {} });
  });
});

describe("OpenRLHF's query → the response", () => {
  const located = (query: string, prompt: string | undefined) => {
    const result = responseFromQuery(query, prompt);
    return result.ok ? [result.rule, result.response] : ['error', result.error];
  };
  const fewShot = 'Q: What is 2 + 2 ?\nA: \\boxed{4}\n\nQ: What is 3 + 5 ?\nA:';

  it('strips the prompt prefix and the trailing special tokens of a decode with skip_special_tokens=False', () => {
    const prompt = '<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n';
    expect(located(`${prompt}<think>x</think>\\boxed{4}<|im_end|><|endoftext|>`, prompt)).toEqual(['prefix', '<think>x</think>\\boxed{4}']);
    // Special tokens inside the response stay: only the trailing run is the decode's end of sequence.
    expect(located('a <|im_end|> b', undefined)).toEqual(['no_prompt', 'a <|im_end|> b']);
  });

  it('is linear in the query: a megabyte of whitespace is not a quadratic scan', () => {
    const blank = `${' '.repeat(1 << 20)}a`;
    expect(located(blank, undefined)).toEqual(['no_prompt', blank]);
    expect(located(`${blank}<|im_end|>  </s>`, undefined)).toEqual(['no_prompt', blank]);
    expect(located(`Q:${blank}`, `Q:${' '.repeat(1 << 20)}`)).toEqual(['prefix', 'a']);
    expect(located(`Q:\t${blank}`, `Q:${' '.repeat(1 << 20)}`)[0]).toBe('prompt_text');
  });

  it("a decode that does not round-trip (clean_up_tokenization_spaces: ' ?' → '?') still finds the response, not the prompt's answer", () => {
    const decoded = fewShot.replaceAll(' ?', '?');
    expect(located(`${decoded} I am not sure.`, fewShot)).toEqual(['prompt_text', ' I am not sure.']);
    // A leading space dropped by SentencePiece, and whitespace added or removed inside.
    expect(located(`${fewShot.replace('Q: ', 'Q:').slice(0)}\n  \\boxed{8}`, ` ${fewShot}`)).toEqual(['prompt_text', '\n  \\boxed{8}']);
  });

  it('a left-truncated prompt: the query starts with the prompt tail', () => {
    const long = `${'Background sentence number one. '.repeat(20)}${fewShot}`;
    const tail = long.slice(300);
    expect(located(`${tail} No idea.`, long)).toEqual(['prompt_text', ' No idea.']);
    // Truncation inside a multi-byte character decodes to U+FFFD first.
    expect(located(`\uFFFD${tail.replaceAll(' ?', '?')} No idea.`, long)).toEqual(['prompt_text', ' No idea.']);
  });

  it('chat-templated: the text after the last assistant marker, whatever the decode did to the turns before', () => {
    const prompt = '<|im_start|>system\nBe brief .<|im_end|>\n<|im_start|>user\nWhat is 2+2 ? Example: \\boxed{5}<|im_end|>\n<|im_start|>assistant\n';
    const query = `${prompt.slice(40).replaceAll(' ?', '?').replaceAll(' .', '.')}I think it is four.<|im_end|>`;
    expect(located(query, prompt)).toEqual(['assistant_marker', 'I think it is four.']);
    const llama = '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi ?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n';
    expect(located(`${llama.replace(' ?', '?')}Hello<|eot_id|>`, llama)).toEqual(['assistant_marker', 'Hello']);
    // DeepSeek-R1's template opens the think block in the prompt: that prefix is skipped too.
    const r1 = '<｜begin▁of▁sentence｜><｜User｜>Sum ?<｜Assistant｜><think>\n';
    expect(located(`<｜begin▁of▁sentence｜><｜User｜>Sum?<｜Assistant｜><think>\nmm</think>\\boxed{3}`, r1)).toEqual(['assistant_marker', 'mm</think>\\boxed{3}']);
  });

  it('a chat marker the policy wrote inside its response does not move the split', () => {
    const prompt = '<|im_start|>user\nWhat is 2+2 ?<|im_end|>\n<|im_start|>assistant\n';
    const response = '\\boxed{4}\n<|im_start|>assistant\nActually \\boxed{5}';
    // The same response by both paths: the exact prefix, and the marker fallback after a decode that changed the prompt.
    expect(located(`${prompt}${response}<|im_end|>`, prompt)).toEqual(['prefix', response]);
    expect(located(`${prompt.replace(' ?', '?')}${response}<|im_end|>`, prompt)).toEqual(['assistant_marker', response]);
    // Left-truncated inside the context before the marker: what the query kept of it still places the split.
    const truncated = `${prompt.replace(' ?', '?').slice(prompt.indexOf('?<|im_end|>') - 1)}${response}`;
    expect(located(truncated, prompt)).toEqual(['assistant_marker', response]);
  });

  it('a query that does not continue its prompt is refused, not graded whole', () => {
    expect(located('Entirely different text with \\boxed{4}', fewShot)[0]).toBe('error');
    // A short coincidental overlap with the prompt tail is not trusted.
    expect(located('A: \\boxed{4}', `${'x'.repeat(100)} A:`)[0]).toBe('error');
  });
});

describe('group options over the HTTP gateway', () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ workers: 1 });
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(() => server.shutdown());

  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('POST /v1/score with groupOptions shapes rewards, sets advantages and the keep verdict', async () => {
    const qa = (response: string, responseTokens: number) => sample({ verifier: 'qa', groupId: 'g', response, responseTokens, label: { choice: 'C' } });
    const res = await post('/v1/score', {
      samples: [qa('\\boxed{C}', 200), qa('\\boxed{C}', 700), qa('\\boxed{A}', 100)],
      groupOptions: { length_penalty: true, maxLength: 1200, advantage: 'mean' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<Record<string, unknown>>; groups: unknown[] };
    // 700 tokens: 0.5 × 500 / 1000 = 0.25 → rewards 1, 0.75, 0; mean 1.75 / 3.
    expect(body.results.map((r) => [r.reward, (r.details as Record<string, unknown>).rawReward])).toEqual([
      [1, 1],
      [0.75, 1],
      [0, 0],
    ]);
    const mean = 1.75 / 3;
    [1 - mean, 0.75 - mean, -mean].forEach((expected, i) => expect(body.results[i]!.advantage).toBeCloseTo(expected, 12));
    expect(body.groups).toEqual([
      { groupId: 'g', size: 3, ok: 3, aborted: 0, invalid: 0, keep: true, keepReason: '', shortestCorrect: 200, meanReward: expect.closeTo(mean, 12), meanRawReward: 2 / 3 },
    ]);
  });

  it('refuses unusable group options with 400 naming the field', async () => {
    const res = await post('/v1/score', { samples: [], groupOptions: { keepMin: 0.5, keepMax: 0.2 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'INVALID_ARGUMENT', message: 'group_options.keep_max: must be greater than keep_min (0.5): the window (keep_min, keep_max] is empty' },
    });
    const typo = await post('/v1/score', { samples: [], groupOptions: { lenghtPenalty: true } });
    expect(((await typo.json()) as { error: { message: string } }).error.message).toBe('group_options.lenghtPenalty: unknown field');
  });

  it('trainer routes refuse bodies that are not their protocol', async () => {
    const res = await post('/slime/qa', { prompt: 'p', label: 'C' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'INVALID_ARGUMENT', message: 'response: expected a string' } });
    const openrlhf = await post('/openrlhf', { query: 'not a list' });
    expect(openrlhf.status).toBe(400);
  });
});

describe('the literals the trainer routes write', () => {
  it('rewards always in float form', () => {
    expect([1, 0, -0, 0.75, -2, 1e21, 1e-7].map(floatLiteral)).toEqual(['1.0', '0.0', '0.0', '0.75', '-2.0', '1e+21', '1e-7']);
    expect(() => floatLiteral(Number.NaN)).toThrow(RangeError);
  });

  it('reason phrases are one printable ASCII line of bounded length', () => {
    expect(reasonPhrase('label.gold: «x»\r\nSet-Cookie: a')).toBe('label.gold: ?x???Set-Cookie: a');
    expect(reasonPhrase('x'.repeat(500))).toBe(`${'x'.repeat(197)}...`);
  });
});

describe('trainer routes answer as the trainers read them', () => {
  let server: RunningServer;
  let aborting: RunningServer;
  const logged: string[] = [];
  let restoreStderr: () => void;
  beforeAll(async () => {
    [server, aborting] = await Promise.all([
      startTestServer({ workers: 1 }),
      startTestServer({ workers: 1, verifiers: ABORTING_VERIFIERS }),
    ]);
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    restoreStderr = () => spy.mockRestore();
  });
  afterAll(async () => {
    restoreStderr();
    await Promise.all([server.shutdown(), aborting.shutdown()]);
  });

  const post = (target: RunningServer, path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${target.httpPort}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** Every number in a JSON text, as written. */
  const numberLiterals = (text: string) => [...text.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)].map((m) => m[0]);

  it('OpenRLHF rewards are JSON floats (1.0, not 1), so its advantage estimators get a float tensor', async () => {
    const res = await post(server, '/openrlhf/qa?label_field=choice', { query: ['\\boxed{C}', '\\boxed{A}'], prompts: ['', ''], labels: ['C', 'C'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    expect(text).toBe('{"rewards":[1.0,0.0],"scores":[1.0,0.0],"extra_logs":{}}');
    expect(JSON.parse(text)).toEqual({ rewards: [1, 0], scores: [1, 0], extra_logs: {} });
  });

  it('slime gets a bare JSON float', async () => {
    const res = await post(server, '/slime/qa?label_field=answers[]', { prompt: 'Capital?', response: '\\boxed{Paris}', label: 'Paris' });
    const text = await res.text();
    expect([res.status, text]).toEqual([200, '1.0']);
    const penalized = await post(server, '/slime/qa', { response: '\\boxed{Lyon}', label: { answers: ['Paris'] } });
    expect(numberLiterals(await penalized.text())).toEqual(['0.0']);
  });

  it("grades the response, not a few-shot answer in a prompt the decode changed (' ?' → '?')", async () => {
    const prompt = 'Q: What is 2 + 2 ?\nA: \\boxed{4}\n\nQ: What is 1 + 3 ?\nA:';
    const query = `${prompt.replaceAll(' ?', '?')} I do not know.`;
    const res = await post(server, '/openrlhf/math?label_field=gold', { query: [query], prompts: [prompt], labels: ['4'] });
    expect([res.status, await res.text()]).toEqual([200, '{"rewards":[0.0],"scores":[0.0],"extra_logs":{}}']);
    const right = await post(server, '/openrlhf/math?label_field=gold', { query: [`${query} \\boxed{4}`], prompts: [prompt], labels: ['4'] });
    expect(await right.text()).toBe('{"rewards":[1.0],"scores":[1.0],"extra_logs":{}}');
  });

  it('a query that does not continue its prompt is INVALID naming it, with the reason in the status line and the log', async () => {
    logged.length = 0;
    const res = await post(server, '/openrlhf/math?label_field=gold', { query: ['unrelated \\boxed{4}'], prompts: ['What is 2 + 2 ? Answer with \\boxed{4}.'], labels: ['4'] });
    expect(res.status).toBe(422);
    expect(res.statusText).toMatch(/^query\[0\]: response not located: /);
    const body = (await res.json()) as { error: { code: string; samples: Array<{ reason: string }> } };
    expect(body.error.code).toBe('INVALID');
    expect(body.error.samples[0]!.reason).toBe(res.statusText);
    expect(logged.join('')).toContain(`http.openrlhf: 422 ${res.statusText} (1 sample in the request)`);
  });

  it('422: the status line carries the first reason, the body every sample', async () => {
    const res = await post(server, '/openrlhf/math', { query: ['\\boxed{1}', '\\boxed{2}'], prompts: ['', ''], labels: [{ gold: true }, {}] });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { message: string; samples: Array<{ index: number; reason: string }> } };
    expect(body.error.samples.map((s) => s.index)).toEqual([0, 1]);
    expect(body.error.samples[0]!.reason).toMatch(/^label\.gold: /);
    expect(res.statusText).toBe(`${body.error.samples[0]!.reason} (+1 more)`);
    expect(body.error.samples[1]!.reason).toMatch(/^label\.gold: /);
  });

  it('503 + Retry-After for infrastructure noise, with its reason in the status line', async () => {
    logged.length = 0;
    const res = await post(aborting, '/slime/flaky', { prompt: 'p', response: 'r', label: { reward: 1 } });
    expect([res.status, res.statusText, res.headers.get('retry-after')]).toEqual([503, 'sandbox_unavailable', '1']);
    expect(logged.join('')).toContain('http.slime: 503 sandbox_unavailable (1 sample in the request)');
  });

  it('a verifier whose service is not configured: 501 naming the service, no Retry-After (a retry cannot cure it)', async () => {
    const label = { mode: 'assert', fn_name: 'add', tests: ['assert add(1, 2) == 3'] };
    const res = await post(server, '/slime/code', { prompt: 'p', response: '```python\ndef add(a, b):\n    return a + b\n```', label });
    expect([res.status, res.headers.get('retry-after')]).toEqual([501, null]);
    expect(res.statusText).toBe('verifier code needs service "sandbox", which this server does not configure');
    const body = (await res.json()) as { error: { code: string; samples: unknown[] } };
    expect(body.error.code).toBe('FAILED_PRECONDITION');
    expect(body.error.samples).toEqual([{ index: 0, status: 'ABORTED', reason: 'service_unavailable', verifier: 'code', service: 'sandbox' }]);
  });

  it('counts requests without samples (OpenRLHF with several URLs sends empty lists to all but the first)', async () => {
    const metric = async () => {
      const text = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
      return Number(/^verdict_trainer_empty_requests_total\{route="openrlhf"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await metric();
    const res = await post(server, '/openrlhf/qa', { query: [], prompts: [], labels: [] });
    expect([res.status, await res.text()]).toEqual([200, '{"rewards":[],"scores":[],"extra_logs":{}}']);
    expect(await metric()).toBe(before + 1);
  });
});
