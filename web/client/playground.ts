/**
 * The playground served at `GET /`: pick a verifier (GET /v1/verifiers), fill its label with the
 * schema's help, score a response (POST /v1/score), read the verdict; or open a results file and
 * see the report page. The page holds no data of its own: with auth on, every API call carries the
 * bearer token typed into the token field (kept in sessionStorage, so it dies with the tab).
 */
namespace Verdict {
  interface Info {
    name: string;
    version: string;
    description: string;
    /** The label's JSON Schema (an object since /v1/verifiers answers it as `verdict verifiers --json` does). */
    labelSchema: Schema;
  }

  interface Schema {
    type?: string | string[];
    description?: string;
    enum?: unknown[];
    const?: unknown;
    properties?: Record<string, Schema>;
    required?: string[];
    default?: unknown;
    pattern?: string;
    minimum?: number;
    maximum?: number;
    minLength?: number;
    minItems?: number;
    anyOf?: Schema[];
    oneOf?: Schema[];
    items?: Schema;
    additionalProperties?: boolean | Schema;
  }

  interface Example {
    label: Row;
    response: string;
    metadata?: Row;
  }

  /** The agent_state example's database: a read-only task leaves it as it was. */
  const CHILL =
    "CREATE TABLE playlists (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE playlist_tracks (playlist_id INTEGER, track_id INTEGER); INSERT INTO playlists VALUES (1, 'Chill'); INSERT INTO playlist_tracks VALUES (1, 1), (1, 2), (1, 4);";

  /** One example per verifier Verdict ships; any other verifier gets its schema's required fields. */
  const EXAMPLES: Record<string, Example> = {
    qa: { label: { choice: 'A' }, response: 'Option A fits the data. \\boxed{A}' },
    math: { label: { gold: '0.5' }, response: 'Halving 1 gives \\boxed{\\frac{1}{2}}' },
    search: { label: { question: 'Who wrote Dune?', answer: 'Frank Herbert', tool_calls: { total: 3, successful: 3, malformed: 0 } }, response: 'It was \\boxed{Frank Herbert}' },
    rlhf: { label: {}, response: 'Leaves drift and fall / the pond holds a quiet sky / one frog breaks the glass', metadata: { messages: [{ role: 'user', content: 'Write a haiku.' }] } },
    if: {
      label: {
        rubrics: [
          { kind: 'constraint', id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 10 } },
          { kind: 'constraint', id: 'change_case:english_lowercase' },
        ],
      },
      response: 'all lower case, and short',
    },
    code: { label: { mode: 'assert', tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0'] }, response: '```python\ndef add(a, b):\n    return a + b\n```' },
    puzzle: { label: { checker: 'def check(answer):\n    return int(answer) % 4 == 0' }, response: '\\boxed{12}' },
    // AgentWorldModel's format: verify_task_completion(initial_db_path, final_db_path, final_answer)
    // → {"result": "complete" | "others"}, the final answer taken after </think>.
    agent_state: {
      label: {
        task: {
          id: 'chill-track-count',
          code: "def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n    q = 'SELECT count(*) FROM playlist_tracks WHERE playlist_id = 1'\n    before = sqlite3.connect('file:%s?mode=ro' % initial_db_path, uri=True).execute(q).fetchone()[0]\n    after = sqlite3.connect('file:%s?mode=ro' % final_db_path, uri=True).execute(q).fetchone()[0]\n    if before != after:\n        return {'result': 'others'}  # a read-only task: nothing may change\n    stated = re.findall(r'\\b(\\d+) tracks?\\b', final_answer or '')\n    return {'result': 'complete' if stated == [str(after)] else 'others'}\n",
          entry: 'verify_task_completion',
        },
      },
      response: '<think>Chill holds tracks 1, 2 and 4.</think>\nYour Chill playlist has 3 tracks.',
      metadata: {
        initialState: { sql: CHILL },
        finalState: { sql: CHILL },
      },
    },
    terminal: {
      label: { task: { id: 'answer-42', tests: { 'test.sh': 'cd /app\nif [ "$(cat answer.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } } },
      response: 'Wrote the answer.',
      // A tar.gz of one file, answer.txt holding 42: the episode's final workspace.
      metadata: { workspace: { tar: 'H4sIAAAAAAACA+3NMQrCQBQE0H8UTyBDWN3zpLC1SDbo8UUrsTcovNfMMM3M1/V2WY7jPuprkuTc2iuTfGaS6a0/9977qQ6pHWzrmJfKLl8/qE0FAAAAAAAAAADAH3oA6vlHOAAoAAA=' } },
    },
  };

  const TOKEN_KEY = 'verdict.token';

  function typeOf(schema: Schema): string {
    if (schema.enum || schema.const !== undefined) return 'enum';
    const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
    return t ?? 'json';
  }

  function skeleton(schema: Schema): Row {
    const out: Row = {};
    for (const name of schema.required ?? []) {
      const field = schema.properties?.[name] ?? {};
      const t = typeOf(field);
      out[name] = t === 'string' ? '' : t === 'number' || t === 'integer' ? 0 : t === 'boolean' ? false : t === 'array' ? [] : t === 'enum' ? (field.enum?.[0] ?? field.const) : {};
    }
    return out;
  }

  /** One label field's input: what it shows, how its text becomes a value, where its error goes. */
  interface Field {
    name: string;
    schema: Schema;
    input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
    error: HTMLElement;
    /** undefined: left empty (the field is not sent). */
    read(): { ok: true; value: unknown } | { ok: false; error: string };
  }

  function fieldFor(name: string, schema: Schema, required: boolean, value: unknown): { row: HTMLElement; field: Field } {
    const id = `label-${name}`;
    const t = typeOf(schema);
    let input: Field['input'];
    let read: Field['read'];
    if (t === 'enum' || t === 'boolean') {
      const options = t === 'boolean' ? [true, false] : schema.enum ?? [schema.const];
      input = h('select', { id }, h('option', { value: '' }, required ? '(choose)' : '(default)'), ...options.map((o, i) => h('option', { value: String(i) }, JSON.stringify(o))));
      const index = options.findIndex((o) => o === value);
      input.value = index < 0 ? '' : String(index);
      read = () => ({ ok: true, value: input.value === '' ? undefined : options[Number(input.value)] });
    } else if (t === 'string') {
      const long = typeof value === 'string' && (value.includes('\n') || value.length > 60);
      input = long ? h('textarea', { id, rows: 4 }) : h('input', { id, type: 'text' });
      input.value = typeof value === 'string' ? value : '';
      read = () => ({ ok: true, value: input.value === '' && !required ? undefined : input.value });
    } else if (t === 'number' || t === 'integer') {
      input = h('input', { id, type: 'number', step: t === 'integer' ? '1' : 'any' });
      input.value = typeof value === 'number' ? String(value) : '';
      read = () => {
        if (input.value.trim() === '') return { ok: true, value: undefined };
        const n = Number(input.value);
        if (!Number.isFinite(n)) return { ok: false, error: 'expected a number' };
        if (t === 'integer' && !Number.isInteger(n)) return { ok: false, error: 'expected an integer' };
        return { ok: true, value: n };
      };
    } else {
      input = h('textarea', { id, rows: 5, class: 'code', spellcheck: 'false' });
      input.value = value === undefined ? '' : JSON.stringify(value, null, 2);
      read = () => {
        if (input.value.trim() === '') return { ok: true, value: undefined };
        try {
          return { ok: true, value: JSON.parse(input.value) as unknown };
        } catch (error) {
          return { ok: false, error: `not valid JSON (${(error as Error).message})` };
        }
      };
    }
    const error = h('p', { id: `${id}-error`, class: 'field-error', role: 'alert' });
    const help = h('p', { id: `${id}-help`, class: 'help' }, schema.description ?? '', schema.default !== undefined ? ` Default: ${JSON.stringify(schema.default)}.` : '', t === 'json' || t === 'array' || t === 'object' ? ' (JSON)' : '');
    input.setAttribute('aria-describedby', `${id}-help ${id}-error`);
    if (required) input.setAttribute('aria-required', 'true');
    const row = h('div', { class: 'field', 'data-field': name }, h('label', { for: id }, name, required ? h('span', { class: 'required' }, ' (required)') : null), input, help, error);
    return { row, field: { name, schema, input, error, read } };
  }

  /** The checks of the schema the browser can make before sending: the server's INVALID reason is the final word. */
  function check(field: Field, value: unknown): string | null {
    const s = field.schema;
    if (value === undefined) return null;
    if (typeof value === 'string') {
      if (s.minLength !== undefined && value.length < s.minLength) return `at least ${s.minLength} characters`;
      if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) return `must match ${s.pattern}`;
    }
    if (typeof value === 'number') {
      if (s.minimum !== undefined && value < s.minimum) return `at least ${s.minimum}`;
      if (s.maximum !== undefined && value > s.maximum) return `at most ${s.maximum}`;
    }
    if (Array.isArray(value) && s.minItems !== undefined && value.length < s.minItems) return `at least ${s.minItems} items`;
    return null;
  }

  /** What each verifier's details mean, shown above the raw details. */
  function explain(result: Row, response: string, label: Row): Node[] {
    const details = (result['details'] ?? {}) as Row;
    const verifier = String(result['verifier'] ?? '');
    const out: Node[] = [];
    if ((verifier === 'math' || verifier === 'qa' || verifier === 'search') && 'extracted' in details) {
      out.push(h('h4', {}, 'Extracted answer in the response'), highlighted(response, details['extracted']));
    }
    if (Array.isArray(details['rubrics'])) {
      const rubrics = details['rubrics'] as Row[];
      out.push(
        table(
          'Rubrics',
          ['#', 'rubric', 'verdict', 'reason'],
          rubrics.map((r) => {
            const { index, kind, verdict, id, question, ...rest } = r;
            return [String(index), `${String(kind)} ${String(id ?? question ?? '')}`, h('span', { class: `verdict-${String(verdict)}` }, String(verdict)), Object.keys(rest).length ? JSON.stringify(rest) : '–'];
          }),
        ),
      );
    }
    if (verifier === 'code' && typeof details['total'] === 'number') out.push(...codeTests(details, label));
    if (verifier === 'agent_state' && 'task' in details) {
      out.push(h('p', { class: 'task-verdict' }, `Task ${String(details['task'])}: ${String(result['reason'] ?? '')}${'why' in details ? ` (${String(details['why'])})` : ''}`));
    }
    if (verifier === 'terminal' && 'task' in details) {
      const rows: Array<[string, string]> = [['task', String(details['task'])]];
      if ('exitCode' in details) rows.push(['test.sh exit code', String(details['exitCode'])]);
      if ('file' in details) rows.push(['reward file', `${String(details['file'])}: ${JSON.stringify(details['raw'] ?? null)}`]);
      out.push(table('Harbor test run', ['what', 'value'], rows));
      if (typeof details['output'] === 'string' && details['output'] !== '') out.push(h('h4', {}, 'test.sh output (tail)'), h('pre', { class: 'output' }, details['output']));
    }
    return out;
  }

  /**
   * Every test of a code label with its verdict. The sandbox runs the selected tests in ascending
   * order and stops at the first failure: those before it passed, the one that failed shows expected
   * against got, the rest did not run. A subsampled label (tests_in_label) names only what is known.
   */
  function codeTests(details: Row, label: Row): Node[] {
    const passed = Number(details['passed']);
    const total = Number(details['total']);
    const failure = details['first_failure'] as Row | undefined;
    const subsampled = typeof details['tests_in_label'] === 'number';
    const out: Node[] = [h('p', { class: 'tests' }, `${passed} of ${total} tests passed${subsampled ? ` (${total} of the label's ${String(details['tests_in_label'])} tests were selected)` : ''}`)];
    if (typeof details['error'] === 'string') out.push(h('pre', { class: 'output' }, `compile error: ${details['error']}`));
    const tests = Array.isArray(label['tests']) ? (label['tests'] as unknown[]) : [];
    // An assert test as written; a stdin/stdout test by its input (its expected output is in the row).
    const shown = (test: unknown) => (typeof test === 'string' ? test : `stdin ${JSON.stringify((test as Row | null)?.['stdin'] ?? test)}`);
    const failedRow = (f: Row, test: unknown): Child[] => [
      String(f['index']),
      test === undefined ? String(f['test'] ?? f['input'] ?? '') : shown(test),
      h('span', { class: 'verdict-fail' }, `failed: ${String(f['reason'] ?? '')}`),
      JSON.stringify(f['expected'] ?? null),
      JSON.stringify(f['got'] ?? f['error'] ?? null),
    ];
    let rows: Child[][];
    if (subsampled || tests.length !== total) {
      rows = failure ? [failedRow(failure, tests[Number(failure['index'])])] : [];
    } else {
      const failedAt = failure ? Number(failure['index']) : -1;
      rows = tests.map((test, i) => {
        if (i === failedAt) return failedRow(failure!, test);
        const ran = failedAt < 0 ? i < passed : i < failedAt;
        return [String(i), shown(test), h('span', { class: ran ? 'verdict-pass' : 'verdict-skip' }, ran ? 'passed' : failure ? 'not run (after the first failure)' : 'not run'), '–', '–'];
      });
    }
    if (rows.length > 0) out.push(table('Tests (the sandbox stops at the first failure)', ['#', 'test', 'verdict', 'expected', 'got'], rows));
    return out;
  }

  function resultCard(result: Row, response: string, label: Row): HTMLElement {
    const status = statusOf(result);
    const reward = rewardOf(result);
    return h(
      'article',
      { class: `result status-${status}`, 'data-status': status, 'aria-label': `result ${String(result['id'])}` },
      h('h3', {}, String(result['id'])),
      h(
        'dl',
        {},
        h('dt', {}, 'status'),
        h('dd', { class: 'status' }, status),
        h('dt', {}, 'reward'),
        h('dd', { class: 'reward' }, reward === null ? '– (no reward unless OK)' : String(reward)),
        h('dt', {}, 'reason'),
        h('dd', { class: 'reason' }, String(result['reason'] ?? '')),
        'advantage' in result ? h('dt', {}, 'advantage') : null,
        'advantage' in result ? h('dd', { class: 'advantage' }, fmt(result['advantage'] as number, 4)) : null,
      ),
      ...explain(result, response, label),
      h('details', {}, h('summary', {}, 'details'), h('pre', { class: 'json details' }, JSON.stringify(result['details'] ?? {}, null, 2))),
    );
  }

  export function startPlayground(root: HTMLElement): void {
    const token = h('input', { id: 'token', type: 'password', autocomplete: 'off' });
    token.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
    const connect = h('button', { type: 'submit' }, 'Connect');
    const connection = h('p', { id: 'connection', role: 'status' });
    const verifier = h('select', { id: 'verifier', disabled: true });
    const description = h('p', { id: 'verifier-description', class: 'help' });
    const fields = h('fieldset', { id: 'label-fields' }, h('legend', {}, 'Label'));
    const useExample = h('button', { type: 'button', id: 'use-example' }, 'Fill the example label');
    const response = h('textarea', { id: 'response', rows: 6, class: 'code', spellcheck: 'false' });
    const metadata = h('textarea', { id: 'metadata', rows: 3, class: 'code', spellcheck: 'false', 'aria-describedby': 'metadata-help metadata-error' });
    const metadataError = h('p', { id: 'metadata-error', class: 'field-error', role: 'alert' });
    const group = h('textarea', { id: 'group', rows: 4, class: 'code', spellcheck: 'false', 'aria-describedby': 'group-help' });
    const advantage = h('select', { id: 'advantage' }, h('option', { value: 'grpo' }, 'grpo'), h('option', { value: 'mean' }, 'mean'), h('option', { value: '' }, 'none'));
    const score = h('button', { type: 'submit', id: 'score', disabled: true }, 'Score');
    const output = h('section', { id: 'output', 'aria-live': 'polite', 'aria-label': 'verdict' });
    const file = h('input', { id: 'results-file', type: 'file', accept: '.jsonl,.json,.gz' });
    const reportRoot = h('div', { id: 'report' });

    let infos: Info[] = [];
    let current: Field[] = [];
    const headers = (): Record<string, string> => (token.value.trim() === '' ? {} : { authorization: `Bearer ${token.value.trim()}` });

    /** The branch of a union label (oneOf/anyOf) that fits `values`: its const fields match and it has all their keys. */
    const branchFor = (branches: Schema[], values: Row): number => {
      const fits = (b: Schema) =>
        Object.keys(values).every((k) => k in (b.properties ?? {})) && Object.entries(b.properties ?? {}).every(([k, f]) => f.const === undefined || values[k] === undefined || values[k] === f.const);
      return Math.max(0, branches.findIndex(fits));
    };
    /** How a branch is named in the variant picker: its const fields, else its required fields. */
    const branchName = (b: Schema): string => {
      const consts = Object.entries(b.properties ?? {}).filter(([, f]) => f.const !== undefined);
      return consts.length ? consts.map(([k, f]) => `${k} ${JSON.stringify(f.const)}`).join(', ') : `with ${(b.required ?? Object.keys(b.properties ?? {})).join(', ')}`;
    };

    const buildForm = (fill: Row | null, branch?: number) => {
      const info = infos.find((i) => i.name === verifier.value);
      fields.replaceChildren(h('legend', {}, 'Label'));
      current = [];
      if (!info) return;
      description.textContent = `${info.name} ${info.version}: ${info.description}`;
      const root = info.labelSchema;
      // A union label (code's assert or stdio, a task inline or by id): one branch's fields at a time.
      const branches = root.oneOf ?? root.anyOf;
      let values = fill ?? EXAMPLES[info.name]?.label ?? (branches ? {} : skeleton(root));
      let schema = root;
      if (branches) {
        const chosen = branch ?? branchFor(branches, values);
        schema = branches[chosen]!;
        if (branch !== undefined) values = skeleton(schema);
        const picker = h('select', { id: 'label-variant' }, ...branches.map((b, i) => h('option', { value: String(i) }, branchName(b))));
        picker.value = String(chosen);
        picker.addEventListener('change', () => buildForm(null, Number(picker.value)));
        fields.appendChild(h('div', { class: 'field' }, h('label', { for: 'label-variant' }, 'Label form'), picker, h('p', { class: 'help' }, 'This label comes in several forms: pick one, its fields follow.')));
      }
      for (const [name, fieldSchema] of Object.entries(schema.properties ?? {})) {
        const { row, field } = fieldFor(name, fieldSchema, (schema.required ?? []).includes(name), values[name]);
        fields.appendChild(row);
        current.push(field);
      }
    };
    const fillExample = () => {
      const example = EXAMPLES[verifier.value];
      buildForm(null);
      response.value = example?.response ?? '';
      metadata.value = example?.metadata ? JSON.stringify(example.metadata, null, 2) : '';
      group.value = '';
      output.replaceChildren();
    };

    const load = async () => {
      sessionStorage.setItem(TOKEN_KEY, token.value.trim());
      connection.textContent = 'Connecting…';
      let res: Response;
      try {
        res = await fetch('/v1/verifiers', { headers: headers() });
      } catch (error) {
        connection.textContent = `Cannot reach the server: ${(error as Error).message}`;
        return;
      }
      if (res.status === 401) {
        connection.textContent = 'This server wants a bearer token: type it above and connect.';
        verifier.disabled = score.disabled = true;
        return;
      }
      if (!res.ok) {
        connection.textContent = `GET /v1/verifiers answered ${res.status}`;
        return;
      }
      infos = ((await res.json()) as { verifiers: Info[] }).verifiers;
      connection.textContent = `Connected: ${infos.length} verifiers.`;
      const keep = verifier.value;
      verifier.replaceChildren(...infos.map((i) => h('option', { value: i.name }, `${i.name} ${i.version}`)));
      if (infos.some((i) => i.name === keep)) verifier.value = keep;
      verifier.disabled = score.disabled = false;
      fillExample();
    };

    const submit = async () => {
      for (const f of current) f.error.textContent = '';
      metadataError.textContent = '';
      const label: Row = {};
      let bad = false;
      for (const f of current) {
        const read = f.read();
        const problem = read.ok ? check(f, read.value) : read.error;
        if (problem !== null) {
          f.error.textContent = problem;
          f.input.setAttribute('aria-invalid', 'true');
          bad = true;
        } else {
          f.input.removeAttribute('aria-invalid');
          if (read.ok && read.value !== undefined) label[f.name] = read.value;
        }
      }
      let meta: Row = {};
      if (metadata.value.trim() !== '') {
        try {
          meta = JSON.parse(metadata.value) as Row;
          if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new Error('expected a JSON object');
        } catch (error) {
          metadataError.textContent = `metadata: ${(error as Error).message}`;
          bad = true;
        }
      }
      if (bad) return void output.replaceChildren(h('p', { class: 'error' }, 'Fix the fields marked above.'));
      const others = group.value.trim() === '' ? [] : group.value.split(/^---$/m).map((s) => s.replace(/^\n|\n$/g, ''));
      const responses = [response.value, ...others];
      const grouped = others.length > 0;
      const samples = responses.map((text, i) => ({ id: grouped ? `rollout-${i}` : 'playground', verifier: verifier.value, response: text, label, metadata: meta, ...(grouped ? { groupId: 'playground' } : {}) }));
      const body = { samples, ...(grouped ? { groupOptions: { advantage: advantage.value } } : {}) };
      output.replaceChildren(h('p', {}, 'Scoring…'));
      const res = await fetch('/v1/score', { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const reply = (await res.json()) as { results?: Row[]; groups?: Row[]; error?: { code: string; message: string } };
      if (!res.ok || !reply.results) return void output.replaceChildren(h('p', { class: 'error', role: 'alert' }, `${res.status} ${reply.error?.code ?? ''}: ${reply.error?.message ?? ''}`));
      output.replaceChildren();
      for (const result of reply.results) {
        // An INVALID label names its field ("label.answers[0]: …"): the message goes to that field too.
        const field = /^label\.([A-Za-z0-9_]+)/.exec(String(result['reason'] ?? ''))?.[1];
        const target = current.find((f) => f.name === field);
        if (statusOf(result) === 'INVALID' && target) {
          target.error.textContent = String(result['reason']);
          target.input.setAttribute('aria-invalid', 'true');
        }
        output.appendChild(resultCard(result, responses[Number(result['index'] ?? 0)] ?? '', label));
      }
      for (const g of reply.groups ?? []) {
        output.appendChild(
          table('Group summary', ['group', 'size', 'OK', 'INVALID', 'ABORTED', 'mean reward', 'keep', 'why not'], [
            [String(g['groupId']), String(g['size']), String(g['ok']), String(g['invalid']), String(g['aborted']), fmt((g['meanReward'] as number | undefined) ?? null, 4), String(g['keep']), String(g['keepReason'] || '–')],
          ]),
        );
      }
    };

    const open = async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      reportRoot.replaceChildren(h('p', {}, `Reading ${chosen.name}…`));
      let text: string;
      if (chosen.name.endsWith('.gz')) text = await new Response(chosen.stream().pipeThrough(new DecompressionStream('gzip'))).text();
      else if (/\.(zst|parquet)$/.test(chosen.name)) {
        return void reportRoot.replaceChildren(h('p', { role: 'alert', class: 'error' }, `${chosen.name}: the browser reads JSONL, JSON and .gz; for .zst and Parquet run verdict report ${chosen.name}`));
      } else text = await chosen.text();
      renderParsed(parseReportText(text), reportRoot, chosen.name);
    };

    verifier.addEventListener('change', fillExample);
    useExample.addEventListener('click', () => buildForm(null));
    file.addEventListener('change', () => void open());
    const connectForm = h('form', { id: 'connect', 'aria-label': 'server' }, h('label', { for: 'token' }, 'Bearer token (only if the server was started with one) '), token, connect, connection);
    connectForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void load();
    });
    const scoreForm = h(
      'form',
      { id: 'score-form', 'aria-label': 'score a response' },
      h('div', { class: 'field' }, h('label', { for: 'verifier' }, 'Verifier'), verifier, description),
      fields,
      useExample,
      h('div', { class: 'field' }, h('label', { for: 'response' }, 'Response'), response),
      h('div', { class: 'field' }, h('label', { for: 'metadata' }, 'Metadata'), metadata, h('p', { id: 'metadata-help', class: 'help' }, 'JSON object: the prompt as metadata.messages, tool-call counts, … (optional)'), metadataError),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'group' }, 'More responses to the same prompt (a group)'),
        group,
        h('p', { id: 'group-help', class: 'help' }, 'Optional: other rollouts, separated by lines of ---. The group is scored together: its summary and advantages are shown.'),
        h('label', { for: 'advantage' }, 'Advantage estimator '),
        advantage,
      ),
      score,
    );
    scoreForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void submit();
    });
    root.replaceChildren(
      h('h1', {}, 'Verdict playground'),
      connectForm,
      h('div', { class: 'columns' }, h('section', { 'aria-label': 'input' }, h('h2', {}, 'Score a response'), scoreForm), h('section', { 'aria-label': 'output' }, h('h2', {}, 'Verdict'), output)),
      h('section', { 'aria-label': 'open a results file' }, h('h2', {}, 'Open a results file'), h('label', { for: 'results-file' }, 'Results (JSONL, .gz) or a report (JSON) '), file, reportRoot),
    );
    void load();
  }
}
