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
    /** The sample the verifier's definition carries (core/verifier.ts): the form starts from it. */
    example: Example;
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
    reward?: number;
  }

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

  /** The branch of a union label (oneOf/anyOf) that fits `values`: its const fields match and it has all their keys. */
  function branchFor(branches: Schema[], values: Row): number {
    const fits = (b: Schema) =>
      Object.keys(values).every((k) => k in (b.properties ?? {})) && Object.entries(b.properties ?? {}).every(([k, f]) => f.const === undefined || values[k] === undefined || values[k] === f.const);
    return Math.max(0, branches.findIndex(fits));
  }

  /** How a branch is named in the variant picker: its const fields, else its required fields. */
  function branchName(b: Schema): string {
    const consts = Object.entries(b.properties ?? {}).filter(([, f]) => f.const !== undefined);
    return consts.length ? consts.map(([k, f]) => `${k} ${JSON.stringify(f.const)}`).join(', ') : `with ${(b.required ?? Object.keys(b.properties ?? {})).join(', ')}`;
  }

  /** The page's controls, and what it knows: the server's verifiers and the label fields on show. */
  interface Page {
    token: HTMLInputElement;
    connection: HTMLElement;
    verifier: HTMLSelectElement;
    description: HTMLElement;
    fields: HTMLFieldSetElement;
    useExample: HTMLButtonElement;
    response: HTMLTextAreaElement;
    metadata: HTMLTextAreaElement;
    metadataError: HTMLElement;
    group: HTMLTextAreaElement;
    advantage: HTMLSelectElement;
    score: HTMLButtonElement;
    output: HTMLElement;
    file: HTMLInputElement;
    reportRoot: HTMLElement;
    infos: Info[];
    current: Field[];
  }

  function controls(): Page {
    const token = h('input', { id: 'token', type: 'password', autocomplete: 'off' });
    token.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
    return {
      token,
      connection: h('p', { id: 'connection', role: 'status' }),
      verifier: h('select', { id: 'verifier', disabled: true }),
      description: h('p', { id: 'verifier-description', class: 'help' }),
      fields: h('fieldset', { id: 'label-fields' }, h('legend', {}, 'Label')),
      useExample: h('button', { type: 'button', id: 'use-example' }, 'Fill the example label'),
      response: h('textarea', { id: 'response', rows: 6, class: 'code', spellcheck: 'false' }),
      metadata: h('textarea', { id: 'metadata', rows: 3, class: 'code', spellcheck: 'false', 'aria-describedby': 'metadata-help metadata-error' }),
      metadataError: h('p', { id: 'metadata-error', class: 'field-error', role: 'alert' }),
      group: h('textarea', { id: 'group', rows: 4, class: 'code', spellcheck: 'false', 'aria-describedby': 'group-help' }),
      advantage: h('select', { id: 'advantage' }, h('option', { value: 'grpo' }, 'grpo'), h('option', { value: 'mean' }, 'mean'), h('option', { value: '' }, 'none')),
      score: h('button', { type: 'submit', id: 'score', disabled: true }, 'Score'),
      output: h('section', { id: 'output', 'aria-live': 'polite', 'aria-label': 'verdict' }),
      file: h('input', { id: 'results-file', type: 'file', accept: '.jsonl,.json,.gz' }),
      reportRoot: h('div', { id: 'report' }),
      infos: [],
      current: [],
    };
  }

  function authHeaders(page: Page): Record<string, string> {
    const token = page.token.value.trim();
    return token === '' ? {} : { authorization: `Bearer ${token}` };
  }

  /** The label's fields for the chosen verifier, filled from `fill` (else its example); a union label shows one branch. */
  function buildForm(page: Page, fill: Row | null, branch?: number): void {
    const info = page.infos.find((i) => i.name === page.verifier.value);
    page.fields.replaceChildren(h('legend', {}, 'Label'));
    page.current = [];
    if (!info) return;
    page.description.textContent = `${info.name} ${info.version}: ${info.description}`;
    const root = info.labelSchema;
    // A union label (code's assert or stdio, a task inline or by id): one branch's fields at a time.
    const branches = root.oneOf ?? root.anyOf;
    let values = fill ?? info.example.label;
    let schema = root;
    if (branches) {
      const chosen = branch ?? branchFor(branches, values);
      schema = branches[chosen]!;
      if (branch !== undefined) values = skeleton(schema);
      const picker = h('select', { id: 'label-variant' }, ...branches.map((b, i) => h('option', { value: String(i) }, branchName(b))));
      picker.value = String(chosen);
      picker.addEventListener('change', () => buildForm(page, null, Number(picker.value)));
      page.fields.appendChild(h('div', { class: 'field' }, h('label', { for: 'label-variant' }, 'Label form'), picker, h('p', { class: 'help' }, 'This label comes in several forms: pick one, its fields follow.')));
    }
    for (const [name, fieldSchema] of Object.entries(schema.properties ?? {})) {
      const { row, field } = fieldFor(name, fieldSchema, (schema.required ?? []).includes(name), values[name]);
      page.fields.appendChild(row);
      page.current.push(field);
    }
  }

  /** The chosen verifier's example, all of it: label, response and metadata. */
  function fillExample(page: Page): void {
    const example = page.infos.find((i) => i.name === page.verifier.value)?.example;
    buildForm(page, null);
    page.response.value = example?.response ?? '';
    page.metadata.value = example?.metadata ? JSON.stringify(example.metadata, null, 2) : '';
    page.group.value = '';
    page.output.replaceChildren();
  }

  /** Connects: lists the server's verifiers (with the token, if one is typed) and keeps the choice. */
  async function load(page: Page): Promise<void> {
    const { token, connection, verifier, score } = page;
    sessionStorage.setItem(TOKEN_KEY, token.value.trim());
    connection.textContent = 'Connecting…';
    let res: Response;
    try {
      res = await fetch('/v1/verifiers', { headers: authHeaders(page) });
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
    page.infos = ((await res.json()) as { verifiers: Info[] }).verifiers;
    connection.textContent = `Connected: ${page.infos.length} verifiers.`;
    const keep = verifier.value;
    verifier.replaceChildren(...page.infos.map((i) => h('option', { value: i.name }, `${i.name} ${i.version}`)));
    if (page.infos.some((i) => i.name === keep)) verifier.value = keep;
    verifier.disabled = score.disabled = false;
    fillExample(page);
  }

  /** The label from its fields, each checked as the schema allows; null when one is marked wrong. */
  function readLabel(fields: Field[]): Row | null {
    const label: Row = {};
    let bad = false;
    for (const f of fields) {
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
    return bad ? null : label;
  }

  /** The metadata box as a JSON object ({} when empty); null when it is not one (the error shown). */
  function readMetadata(page: Page): Row | null {
    if (page.metadata.value.trim() === '') return {};
    try {
      const meta = JSON.parse(page.metadata.value) as Row;
      if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new Error('expected a JSON object');
      return meta;
    } catch (error) {
      page.metadataError.textContent = `metadata: ${(error as Error).message}`;
      return null;
    }
  }

  /** Shows the server's answer: a card per result (an INVALID label's reason also at its field), then each group's summary. */
  function showReply(page: Page, results: Row[], groups: Row[], responses: string[], label: Row): void {
    page.output.replaceChildren();
    for (const result of results) {
      // An INVALID label names its field ("label.answers[0]: …"): the message goes to that field too.
      const field = /^label\.([A-Za-z0-9_]+)/.exec(String(result['reason'] ?? ''))?.[1];
      const target = page.current.find((f) => f.name === field);
      if (statusOf(result) === 'INVALID' && target) {
        target.error.textContent = String(result['reason']);
        target.input.setAttribute('aria-invalid', 'true');
      }
      page.output.appendChild(resultCard(result, responses[Number(result['index'] ?? 0)] ?? '', label));
    }
    for (const g of groups) {
      page.output.appendChild(
        table('Group summary', ['group', 'size', 'OK', 'INVALID', 'ABORTED', 'mean reward', 'keep', 'why not'], [
          [String(g['groupId']), String(g['size']), String(g['ok']), String(g['invalid']), String(g['aborted']), fmt((g['meanReward'] as number | undefined) ?? null, 4), String(g['keep']), String(g['keepReason'] || '–')],
        ]),
      );
    }
  }

  /** Scores the response (with the group's other responses, if any) and shows the verdict. */
  async function submit(page: Page): Promise<void> {
    const { output, group, verifier } = page;
    for (const f of page.current) f.error.textContent = '';
    page.metadataError.textContent = '';
    // Both read (each marks its own errors) before either stops the request.
    const label = readLabel(page.current);
    const meta = readMetadata(page);
    if (label === null || meta === null) return void output.replaceChildren(h('p', { class: 'error' }, 'Fix the fields marked above.'));
    const others = group.value.trim() === '' ? [] : group.value.split(/^---$/m).map((s) => s.replace(/^\n|\n$/g, ''));
    const responses = [page.response.value, ...others];
    const grouped = others.length > 0;
    const samples = responses.map((text, i) => ({ id: grouped ? `rollout-${i}` : 'playground', verifier: verifier.value, response: text, label, metadata: meta, ...(grouped ? { groupId: 'playground' } : {}) }));
    const body = { samples, ...(grouped ? { groupOptions: { advantage: page.advantage.value } } : {}) };
    output.replaceChildren(h('p', {}, 'Scoring…'));
    const res = await fetch('/v1/score', { method: 'POST', headers: { ...authHeaders(page), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const reply = (await res.json()) as { results?: Row[]; groups?: Row[]; error?: { code: string; message: string } };
    if (!res.ok || !reply.results) return void output.replaceChildren(h('p', { class: 'error', role: 'alert' }, `${res.status} ${reply.error?.code ?? ''}: ${reply.error?.message ?? ''}`));
    showReply(page, reply.results, reply.groups ?? [], responses, label);
  }

  /** Opens a results file in the browser: JSONL, JSON or gzip of them, shown as the report page. */
  async function openResults(page: Page): Promise<void> {
    const chosen = page.file.files?.[0];
    if (!chosen) return;
    const reportRoot = page.reportRoot;
    reportRoot.replaceChildren(h('p', {}, `Reading ${chosen.name}…`));
    let text: string;
    if (chosen.name.endsWith('.gz')) text = await new Response(chosen.stream().pipeThrough(new DecompressionStream('gzip'))).text();
    else if (/\.(zst|parquet)$/.test(chosen.name)) {
      return void reportRoot.replaceChildren(h('p', { role: 'alert', class: 'error' }, `${chosen.name}: the browser reads JSONL, JSON and .gz; for .zst and Parquet run verdict report ${chosen.name}`));
    } else text = await chosen.text();
    renderParsed(parseReportText(text), reportRoot, chosen.name);
  }

  /** The page's layout: the connect form, the score form beside the verdict, the results file below. */
  function layout(page: Page, root: HTMLElement): { connectForm: HTMLFormElement; scoreForm: HTMLFormElement } {
    const connect = h('button', { type: 'submit' }, 'Connect');
    const connectForm = h('form', { id: 'connect', 'aria-label': 'server' }, h('label', { for: 'token' }, 'Bearer token (only if the server was started with one) '), page.token, connect, page.connection);
    const scoreForm = h(
      'form',
      { id: 'score-form', 'aria-label': 'score a response' },
      h('div', { class: 'field' }, h('label', { for: 'verifier' }, 'Verifier'), page.verifier, page.description),
      page.fields,
      page.useExample,
      h('div', { class: 'field' }, h('label', { for: 'response' }, 'Response'), page.response),
      h('div', { class: 'field' }, h('label', { for: 'metadata' }, 'Metadata'), page.metadata, h('p', { id: 'metadata-help', class: 'help' }, 'JSON object: the prompt as metadata.messages, tool-call counts, … (optional)'), page.metadataError),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'group' }, 'More responses to the same prompt (a group)'),
        page.group,
        h('p', { id: 'group-help', class: 'help' }, 'Optional: other rollouts, separated by lines of ---. The group is scored together: its summary and advantages are shown.'),
        h('label', { for: 'advantage' }, 'Advantage estimator '),
        page.advantage,
      ),
      page.score,
    );
    root.replaceChildren(
      h('h1', {}, 'Verdict playground'),
      connectForm,
      h('div', { class: 'columns' }, h('section', { 'aria-label': 'input' }, h('h2', {}, 'Score a response'), scoreForm), h('section', { 'aria-label': 'output' }, h('h2', {}, 'Verdict'), page.output)),
      h('section', { 'aria-label': 'open a results file' }, h('h2', {}, 'Open a results file'), h('label', { for: 'results-file' }, 'Results (JSONL, .gz) or a report (JSON) '), page.file, page.reportRoot),
    );
    return { connectForm, scoreForm };
  }

  export function startPlayground(root: HTMLElement): void {
    const page = controls();
    const { connectForm, scoreForm } = layout(page, root);
    page.verifier.addEventListener('change', () => fillExample(page));
    page.useExample.addEventListener('click', () => buildForm(page, null));
    page.file.addEventListener('change', () => void openResults(page));
    connectForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void load(page);
    });
    scoreForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void submit(page);
    });
    void load(page);
  }
}
