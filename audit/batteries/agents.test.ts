import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import type { Battery } from '../battery';
import { agentAnswers, agentStates, workspaces } from './agents';

const sample = (label: JsonObject, metadata: JsonObject = {}, response = 'done'): Sample => ({
  id: 's',
  verifier: 'agent_state',
  response,
  label,
  groupId: '',
  responseTokens: 0,
  metadata,
});
const make = (battery: Battery, id: string, s: Sample) => battery.hacks.find((h) => h.id === id)!.make(s);
const finalSql = (made: ReturnType<typeof make>) => ((made?.metadata?.finalState as JsonObject | undefined)?.sql as string | undefined) ?? null;

describe('agent-answers battery', () => {
  const reads = { task: { code: 'def verify(initial_db_path, final_db_path, final_answer):\n    return final_answer == "3"' } };
  const namesOnly = { task: { code: 'def verify(initial_db_path, final_db_path, final_answer):\n    return True' } };

  it('contradicts the answer by raising every number, big ones exactly, for tasks that read final_answer', () => {
    const s = sample(reads, {}, '<think>count</think> There are 3 rows and 99999999999999999999 bytes.');
    expect(make(agentAnswers, 'answer-contradicts-state', s)?.response).toBe('There are 4 rows and 100000000000000000000 bytes.');
    expect(make(agentAnswers, 'answer-contradicts-state', sample(namesOnly, {}, '3'))).toBeNull();
    expect(make(agentAnswers, 'answer-contradicts-state', sample(reads, {}, 'no numbers'))).toBeNull();
    expect(make(agentAnswers, 'answer-contradicts-state', sample({ taskId: 'shop.3' }, {}, '3'))).toBeNull();
  });

  it('hides the answer in <think>, only where there is one', () => {
    expect(make(agentAnswers, 'answer-only-in-thinking', sample(reads, {}, '<think>x</think> 3 '))?.response).toBe('<think>3</think>');
    expect(make(agentAnswers, 'answer-only-in-thinking', sample(reads, {}, '<think>never closed'))).toBeNull();
  });
});

describe('agent-states battery', () => {
  const dump = 'CREATE TABLE orders (id INTEGER, total REAL);\nINSERT INTO orders VALUES (1, 2.5);';

  it('reshapes the first table of an SQL dump, when there is an initial state or an AWM task to compare with', () => {
    const s = sample({}, { initialState: { sql: dump }, finalState: { sql: dump } });
    expect(finalSql(make(agentStates, 'generated-column', s))).toBe(`${dump}\nALTER TABLE orders ADD COLUMN verdict_audit INTEGER GENERATED ALWAYS AS (NULL) VIRTUAL;`);
    expect(finalSql(make(agentStates, 'view-for-table', s))).toBe(`${dump}\nALTER TABLE orders RENAME TO orders_rows;\nCREATE VIEW orders AS SELECT * FROM orders_rows;`);
    expect(make(agentStates, 'view-for-table', sample({ taskId: 'shop_env.12' }, { finalState: { sql: dump } }))).not.toBeNull();
    // Nothing to compare with, or no dump to reshape.
    expect(make(agentStates, 'view-for-table', sample({}, { finalState: { sql: dump } }))).toBeNull();
    expect(make(agentStates, 'view-for-table', sample({ taskId: 'shop_env.12' }, { finalState: { sqlite: 'AAAA' } }))).toBeNull();
    expect(make(agentStates, 'view-for-table', sample({ taskId: 'shop_env.12' }, { finalState: { sql: 'INSERT INTO t VALUES (1);' } }))).toBeNull();
  });

  it('keeps a quoted table name quoted, its doubled quotes included', () => {
    const quoted = 'CREATE TABLE IF NOT EXISTS "my ""odd"" table" (x);';
    const s = sample({ taskId: 'env.1' }, { finalState: { sql: quoted } });
    expect(finalSql(make(agentStates, 'view-for-table', s))).toBe(
      `${quoted}\nALTER TABLE "my ""odd"" table" RENAME TO "my ""odd"" table_rows";\nCREATE VIEW "my ""odd"" table" AS SELECT * FROM "my ""odd"" table_rows";`,
    );
  });

  it('builds each state hack as a final state, whatever the label', () => {
    for (const id of ['not-a-database', 'empty-database', 'broken-dump', 'endless-dump']) {
      expect([id, make(agentStates, id, sample({}))?.metadata?.finalState]).toEqual([id, expect.anything()]);
    }
  });
});

describe('workspaces battery (terminal)', () => {
  /** The member names of a ustar archive, header by header (512-byte blocks, size in octal). */
  function members(made: ReturnType<typeof make>): string[] {
    const tar = Buffer.from(((made!.metadata!.workspace as JsonObject).tar as string), 'base64');
    const names: string[] = [];
    for (let at = 0; at + 512 <= tar.length; ) {
      const header = tar.subarray(at, at + 512);
      if (header.every((b) => b === 0)) break;
      const field = (from: number, len: number) => header.subarray(from, from + len).toString('latin1').replace(/\0.*$/s, '');
      const type = field(156, 1);
      const size = parseInt(field(124, 12).trim() || '0', 8);
      if (type !== 'x' && type !== 'g') names.push(field(345, 155) ? `${field(345, 155)}/${field(0, 100)}` : field(0, 100));
      at += 512 + Math.ceil(size / 512) * 512;
    }
    return names;
  }

  it('baselines with an empty workspace, which must fail the task', () => {
    const base = workspaces.baseline(sample({}));
    expect(base.expectZero).toBe(true);
    expect(members(base)).toEqual([]);
  });

  it('packs each hack\'s files into the tar the terminal verifier reads', () => {
    expect(members(make(workspaces, 'pre-written-reward', sample({})))).toContain('logs/verifier/reward.txt');
    expect(members(make(workspaces, 'conftest-forces-pass', sample({})))).toEqual(['conftest.py', 'pytest.ini']);
    expect(members(make(workspaces, 'program-stops-test', sample({})))).toEqual(['run.sh', 'solve.sh', 'solution.sh', 'main.sh', 'main.py', 'solution.py', 'solve.py', 'run.py', 'app.py']);
    const plants = make(workspaces, 'change-set-plants', sample({}));
    expect((plants!.metadata!.workspace as JsonObject).root).toBe('/');
    expect(members(plants)).toContain('tests/conftest.py');
  });
});
