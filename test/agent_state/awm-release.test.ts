import { stateAfter } from './states';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../../core/json';
import type { AgentTask } from '../../core/ports/agent-state';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { agentStateConfigSection, agentStateService } from '../../services/agent-state';
import type { Sandbox } from '../../services/sandbox';
import { agentState } from '../../verifiers/agent_state';
import { never, startSandbox } from '../sandbox/helpers';

/** Real release lines of AgentWorldModel-1K: environment e_commerce_33 and its three tasks (SOURCE.md). */
const RELEASE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent_state', 'awm-e_commerce_33');
const FILES = { verifiers: path.join(RELEASE, 'gen_verifier.pure_code.jsonl'), db: path.join(RELEASE, 'gen_db.jsonl'), sample: path.join(RELEASE, 'gen_sample.jsonl') };
const ENV = 'e_commerce_33';

/** The three tasks' intended changes, as the environment's API would write them. */
const ADD_SONY = 'INSERT INTO cart_items (cart_id, product_offer_id, quantity) VALUES (1, 1, 1);';
const REORDER_TOWELS = 'INSERT INTO cart_items (cart_id, product_offer_id, quantity) VALUES (1, 8, 1);';
const WISHLIST = "INSERT INTO wishlists (id, user_id, name) VALUES (4, 1, 'Kitchen Upgrades 2025');";
const AIR_FRYERS = WISHLIST + ' INSERT INTO wishlist_items (wishlist_id, product_id) VALUES (4, 11), (4, 12), (4, 13);';

describe('agent_state on AgentWorldModel-1K release files (real tasks, real sandbox)', () => {
  let sandbox: Sandbox;
  let initial: string;
  const servicesFor = (files: typeof FILES): Services => ({ sandbox, agentState: agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: files }], cpuMs: 1500 })) });
  let services: Services;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000, memoryMb: 512 } });
    services = servicesFor(FILES);
    initial = ((await services.agentState!.task(`${ENV}.0`)) as { task: AgentTask }).task.initialState!.sqlite;
  });
  afterAll(() => sandbox.close());

  /** The environment's initial database after `change`: the state an episode leaves. */
  const after = (change: string) => stateAfter(initial, change);
  const score = (task: number, finalState: JsonObject, response = 'Done.', withServices = services): Promise<Outcome> => {
    const sample: Sample = { id: 's', verifier: 'agent_state', response, label: { taskId: `${ENV}.${task}` }, groupId: '', responseTokens: 0, metadata: { finalState } };
    return scoreAsync(agentState as AsyncVerifier, sample, { signal: never, services: withServices, compute: async () => null });
  };

  it('gives each task the verdict AgentWorldModel\'s own runner gives: right states 1, untouched and wrong ones 0', async () => {
    for (const task of [0, 1, 2]) expect(await score(task, after(''))).toMatchObject({ status: 'OK', reward: 0, details: { task: `${ENV}.${task}`, why: 'others' } });
    expect(await score(1, after(REORDER_TOWELS), 'I reordered 1 x Household Paper Towels 12-Roll Pack.')).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
    // The task checks the answer too: one naming the other towels contradicts the state.
    expect(await score(1, after(REORDER_TOWELS), 'I reordered the Value Paper Towels.')).toMatchObject({ status: 'OK', reward: 0 });
    expect(await score(1, after('INSERT INTO cart_items (cart_id, product_offer_id, quantity) VALUES (1, 9, 2);'))).toMatchObject({ reward: 0 });
    expect(await score(2, after(AIR_FRYERS))).toMatchObject({ status: 'OK', reward: 1 });
    expect(await score(2, after(WISHLIST + ' INSERT INTO wishlist_items (wishlist_id, product_id) VALUES (4, 12), (4, 13);'))).toMatchObject({ reward: 0 });
    // Task 0's verification looks for an offer under $200 of the top-rated headphones overall
    // ($299.99): AWM's runner says "others" whatever the state, and so does Verdict.
    expect(await score(0, after(ADD_SONY), 'Added the Sony WH-CH710N ($149.99).')).toMatchObject({ status: 'OK', reward: 0, details: { why: 'others' } });
  });

  it('gives 0, never 1, for corrupt and reshaped final states of a real task', async () => {
    expect(await score(2, { sqlite: Buffer.from('not a database'.repeat(100)).toString('base64') })).toMatchObject({ status: 'OK', reward: 0, reason: 'corrupt_state' });
    expect(await score(2, after(AIR_FRYERS + ' DROP TABLE product_aggregates;'))).toMatchObject({ status: 'OK', reward: 0, reason: 'schema_changed', details: { tables: ['product_aggregates'] } });
    expect(await score(2, after(AIR_FRYERS + ' ALTER TABLE users RENAME TO people; CREATE VIEW users AS SELECT * FROM people;'))).toMatchObject({ reward: 0, reason: 'schema_changed', details: { tables: ['users'] } });
  });

  it('runs a verification as AWM\'s runner execs it, on its own: a `from __future__` import or a docstring first still loads', async () => {
    // AWM's runner compiles the code alone (exec(code, namespace)): a `from __future__` import is
    // legal only as the first statement, which a prelude put before the code takes away.
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-release-'));
    const lines = readFileSync(FILES.verifiers, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { task_idx: number; verification: { code: string } });
    const code = lines[2]!.verification.code;
    const variants = [
      { task_idx: 3, code: `from __future__ import annotations\n${code}` },
      { task_idx: 4, code: `"""Checks the Kitchen Upgrades 2025 wish list."""\nfrom __future__ import annotations\n\n${code}` },
      // Broken on its first line: the error names that line, not one a prelude shifted.
      { task_idx: 5, code: 'def verify_task_completion(initial_db_path, final_db_path:\n    return {"result": "complete"}\n' },
    ];
    const verifiers = path.join(dir, 'gen_verifier.pure_code.jsonl');
    writeFileSync(verifiers, [...lines, ...variants.map(({ task_idx, code }) => ({ ...lines[2], task_idx, verification: { ...lines[2]!.verification, code } }))].map((l) => JSON.stringify(l)).join('\n') + '\n');
    copyFileSync(FILES.db, path.join(dir, 'gen_db.jsonl'));
    copyFileSync(FILES.sample, path.join(dir, 'gen_sample.jsonl'));
    const withVariants = servicesFor({ verifiers, db: path.join(dir, 'gen_db.jsonl'), sample: path.join(dir, 'gen_sample.jsonl') });
    for (const task of [3, 4]) {
      expect(await score(task, after(AIR_FRYERS), 'Done.', withVariants)).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
      expect(await score(task, after(''), 'Done.', withVariants)).toMatchObject({ status: 'OK', reward: 0 });
    }
    expect(await score(5, after(AIR_FRYERS), 'Done.', withVariants)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task e_commerce_33\.5: the verification code does not load: SyntaxError: .*line 1\)$/) });
  });

  it('gives the verification\'s Python the built database\'s "now": a task asking for orders of the last 60 days with datetime.now() sees its seed data', async () => {
    // AWM's seed data is written relative to "now" (datetime('now', '-40 days')) and its verifications
    // read "now" from Python as often as from SQL: in a database built at the reference time, both
    // must be that time, or a right state is a quiet 0 once the real clock has moved on.
    const code = [
      'def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:',
      '    import sqlite3',
      '    import time',
      '    from datetime import date, datetime, timedelta',
      "    cutoff = (datetime.now() - timedelta(days=60)).strftime('%Y-%m-%d %H:%M:%S')",
      "    if date.today().isoformat() != cutoff[:10] and time.strftime('%Y-%m-%d', time.localtime(time.time() - 60 * 86400)) != cutoff[:10]:",
      '        return {"result": "others"}',
      '    conn = sqlite3.connect(f"file:{initial_db_path}?mode=ro", uri=True)',
      "    row = conn.execute(\"SELECT oi.product_offer_id, oi.quantity FROM order_items oi JOIN orders o ON o.id = oi.order_id WHERE o.user_id = 1 AND o.placed_at >= ? AND oi.product_title LIKE '%Paper Towels%' ORDER BY o.placed_at DESC LIMIT 1\", (datetime.now() - timedelta(days=60),)).fetchone()",
      '    conn.close()',
      '    if row is None:',
      '        return {"result": "others"}',
      '    conn = sqlite3.connect(f"file:{final_db_path}?mode=ro", uri=True)',
      '    n = conn.execute("SELECT count(*) FROM cart_items WHERE cart_id = 1 AND product_offer_id = ? AND quantity = ?", row).fetchone()[0]',
      '    conn.close()',
      '    return {"result": "complete" if n == 1 else "others"}',
      '',
    ].join('\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-release-'));
    const line = { scenario: ENV, task_idx: 0, task: "Reorder the paper towels I bought in the last 60 days, same item and quantity.", verification: { code, raw_response: '' } };
    const verifiers = path.join(dir, 'gen_verifier.pure_code.jsonl');
    writeFileSync(verifiers, JSON.stringify(line) + '\n');
    const withClock = servicesFor({ verifiers, db: FILES.db, sample: FILES.sample });
    expect(await score(0, after(REORDER_TOWELS), 'Done.', withClock)).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
    expect(await score(0, after(''), 'Done.', withClock)).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('reads the CURRENT_* keywords in the verification\'s SQL as the built database\'s "now": the subscription due within a month is found', async () => {
    // Subscription 2 is seeded with next_delivery_date datetime('now', '+30 days'): the one due this
    // month at the reference time, long past by the real clock.
    const code = [
      'def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:',
      '    import sqlite3',
      '    conn = sqlite3.connect(f"file:{initial_db_path}?mode=ro", uri=True)',
      "    due = conn.execute(\"SELECT id FROM user_subscriptions WHERE user_id = 1 AND status = 'active' AND next_delivery_date > CURRENT_TIMESTAMP AND date(next_delivery_date) <= date(CURRENT_DATE, '+31 days') -- not CURRENT_TIME\").fetchall()",
      "    literal = conn.cursor().execute(\"SELECT 'CURRENT_DATE'\").fetchone()[0]",
      '    conn.close()',
      "    if len(due) != 1 or literal != 'CURRENT_DATE':",
      '        return {"result": "others"}',
      '    conn = sqlite3.connect(f"file:{final_db_path}?mode=ro", uri=True)',
      '    status = conn.execute("SELECT status FROM user_subscriptions WHERE id = ?", due[0]).fetchone()',
      '    conn.close()',
      '    return {"result": "complete" if status == ("canceled",) else "others"}',
      '',
    ].join('\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-release-'));
    const line = { scenario: ENV, task_idx: 0, task: 'Cancel my subscription whose next delivery is due within the next month.', verification: { code, raw_response: '' } };
    const verifiers = path.join(dir, 'gen_verifier.pure_code.jsonl');
    writeFileSync(verifiers, JSON.stringify(line) + '\n');
    const withClock = servicesFor({ verifiers, db: FILES.db, sample: FILES.sample });
    expect(await score(0, after("UPDATE user_subscriptions SET status = 'canceled' WHERE id = 2;"), 'Done.', withClock)).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
    expect(await score(0, after("UPDATE user_subscriptions SET status = 'canceled' WHERE id = 1;"), 'Done.', withClock)).toMatchObject({ status: 'OK', reward: 0 });
  });
});
