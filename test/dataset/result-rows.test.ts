import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { labelCell } from '../../core/label-cell';
import { STATUS_NAMES, statusOf } from '../../core/status';
import { learnability } from '../../cli/curate/learnability';
import { resultRow, ResultRowError } from '../../cli/dataset/results';
import { diffFiles } from '../../cli/diff';
import { PreviousResults } from '../../cli/previous';
import { readReportInput, ReportInputError } from '../../cli/report';
import { jsonl, runCli } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-result-rows-'));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};

const good = (line: number, extra: Record<string, unknown> = {}) => ({
  id: `r${line}`,
  line,
  status: 'STATUS_OK',
  reward: 1,
  reason: 'correct_choice',
  verifier: 'qa',
  verifierVersion: '1',
  details: {},
  receipt: { verifier: 'qa@1', config: 'c', input: `i${line}` },
  groupId: `p${line}`,
  ...extra,
});

/** Two good rows, then line 3 whose status is no status. */
const badStatus = () => file(`bad-status-${Math.random().toString(36).slice(2)}.jsonl`, jsonl([good(1), good(2), { ...good(3), status: 'STATUS_MAYBE' }]));

describe('the status table (core/status)', () => {
  it('reads the proto name and the domain name alike, and nothing else', () => {
    expect(statusOf('STATUS_OK')).toBe('OK');
    expect(statusOf('ABORTED')).toBe('ABORTED');
    expect(statusOf('STATUS_UNSPECIFIED')).toBeNull();
    expect(statusOf(1)).toBeNull();
    expect(STATUS_NAMES.INVALID).toBe('STATUS_INVALID');
  });
});

describe('the result row (cli/dataset/results)', () => {
  it('types the fields readers use, keeping the row as written', () => {
    const row = resultRow({ ...good(4), rollout: 2, extra: 'kept' }, 'r.jsonl', 9);
    expect(row).toMatchObject({ at: 9, id: 'r4', line: 4, rollout: 2, status: 'OK', reward: 1, verifier: 'qa', receipt: { input: 'i4' } });
    expect(row.json.extra).toBe('kept');
  });

  it('a bad row is a ResultRowError naming the file, the line and the field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good(1), status: 'STATUS_MAYBE' }, 'status'],
      [{ ...good(1), reward: undefined }, 'reward'],
      [{ ...good(1), reward: '1' }, 'reward'],
      [{ ...good(1), line: 0 }, 'line'],
      [{ ...good(1), rollout: -1 }, 'rollout'],
      [{ ...good(1), reason: 3 }, 'reason'],
    ];
    for (const [value, field] of cases) {
      const json = JSON.parse(JSON.stringify(value)) as Record<string, never>;
      let thrown: unknown;
      try {
        resultRow(json, 'r.jsonl', 7);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ResultRowError);
      expect(thrown).toMatchObject({ file: 'r.jsonl', at: 7, field });
      expect((thrown as Error).message).toMatch(new RegExp(`^r\\.jsonl:7: ${field}: `));
    }
    expect(() => resultRow(JSON.parse(JSON.stringify({ ...good(1), line: undefined })) as Record<string, never>, 'r.jsonl', 2, { needLine: true })).toThrow(/^r\.jsonl:2: line: required/);
  });
});

describe('every reader of result files reads them through the result row', () => {
  it('verdict diff (and so score --compare): names the file and line of a bad row', async () => {
    const ok = file('diff-ok.jsonl', jsonl([good(1), good(2), good(3)]));
    const bad = badStatus();
    await expect(diffFiles(ok, bad, {})).rejects.toThrow(new RegExp(`${path.basename(bad).replace('.', '\\.')}:3: status: expected STATUS_OK`));
    await expect(diffFiles(ok, bad, {})).rejects.toBeInstanceOf(ResultRowError);
  });

  it('--retry-aborted: a row without its input line is refused with file and line', async () => {
    const noLine = file('prev-no-line.jsonl', jsonl([good(1), JSON.parse(JSON.stringify({ ...good(2), line: undefined }))]));
    const previous = await PreviousResults.open(noLine);
    try {
      // Row 1's results end where a later line starts: reading on to line 2 finds the bad row.
      await expect((async () => [await previous.keptRows(1), await previous.keptRows(2)])()).rejects.toMatchObject({ file: noLine, at: 2, field: 'line' });
    } finally {
      await previous.close();
    }
  });

  it('--retry-aborted keeps final rows and rescores a row with an ABORTED result', async () => {
    const mixed = file('prev-mixed.jsonl', jsonl([good(1), { ...good(2), status: 'STATUS_ABORTED', reward: undefined, reason: 'deadline' }]));
    const previous = await PreviousResults.open(mixed);
    try {
      expect((await previous.keptRows(1))?.map((r) => r.status)).toEqual(['OK']);
      expect(await previous.keptRows(2)).toBeNull();
    } finally {
      await previous.close();
    }
  });

  it('curate learnability: names the file and line of a bad row', async () => {
    const bad = badStatus();
    await expect(learnability({ input: bad, key: 'groupId', mode: { kind: 'correctness' }, passReward: 1, promptKey: 'id', progress: false })).rejects.toThrow(
      new RegExp(`:3: status: expected STATUS_OK.*give rollouts with --score`),
    );
  });

  it('the report page loader: names the file and line of a bad row', async () => {
    const bad = file('report-bad.jsonl', jsonl([good(1), { ...good(2), reward: 'high' }]));
    await expect(readReportInput(bad)).rejects.toBeInstanceOf(ReportInputError);
    await expect(readReportInput(bad)).rejects.toThrow(/report-bad\.jsonl:2: reward: expected a number/);
  });

  it('verdict score --compare: a bad earlier results file fails the command naming file and line', async () => {
    const input = file('compare-in.jsonl', jsonl([{ id: 'a', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } }]));
    const old = file('compare-old.jsonl', jsonl([{ ...good(1), status: 'BROKEN' }]));
    const run = await runCli(['score', input, '-o', path.join(dir, 'compare-new.jsonl'), '--workers', '0', '--compare', old]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/compare-old\.jsonl:1: status: expected STATUS_OK/);
  });
});

describe('the label-cell rule (core/label-cell), one for dataset rows and trainer routes', () => {
  const route = { verifier: 'qa', labelField: null };
  it('says the same thing whoever asks, but for how to name a label field', () => {
    expect(labelCell('C', route, 'label', '--route VALUE=VERIFIER:FIELD')).toEqual({ ok: false, error: 'label: a plain label (string) needs a label field: --route VALUE=VERIFIER:FIELD, or a JSON object label' });
    expect(labelCell({ verifier: 7 }, route, 'label', 'x')).toEqual({ ok: false, error: 'label.verifier: expected string, received number' });
    expect(labelCell('{"choice":"C","verifier":"qa"}', route, 'label', 'x')).toEqual({ ok: true, verifier: 'qa', label: { choice: 'C' } });
  });
});
