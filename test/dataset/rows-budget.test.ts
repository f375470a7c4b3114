// A pool job that holds its thread past the engine's budget for its rows is stopped and rejected
// (OverBudget), as a chunk of samples is: verdict score then scores the block on the calling thread,
// where the engine isolates each sample. The budget is the engine's: here a tiny one, so that a
// real block of real rows overruns it.
import { Readable } from 'node:stream';
import { cutLines } from '../../cli/dataset/lines';
import { consumedColumns, mappingFrom, type Mapping } from '../../cli/dataset/mapping';
import { localScorer } from '../../cli/scorer';
import { parseConfig } from '../../services/config';
import { OverBudget } from '../../services/pool/executor';

async function oneBlock(rows: number): Promise<Parameters<NonNullable<Awaited<ReturnType<typeof localScorer>>['rows']>>[0]> {
  const text = Array.from({ length: rows }, (_, i) => JSON.stringify({ id: `q${i}`, verifier: 'qa', response: `${'Consider the options. '.repeat(200)}\\boxed{A}`, label: { choice: 'A' } })).join('\n');
  for await (const block of cutLines(Readable.from([Buffer.from(text)]), rows)) return block;
  throw new Error('no block');
}

describe('verdict score: a pool job past its budget', () => {
  const mapping = (mappingFrom({}) as { ok: true; mapping: Mapping }).mapping;
  const rules = { mapping, consumed: consumedColumns(mapping), keepColumns: true, keepResponse: false };

  it('is stopped and rejected with OverBudget, and the pool scores on', async () => {
    const scorer = await localScorer({ workers: 1, config: parseConfig({}), limits: { sampleBudgetMs: 1, chunkSampleMs: 0 } });
    try {
      const block = await oneBlock(2000);
      await expect(scorer.rows!(block, 0, rules, 'jsonl')).rejects.toBeInstanceOf(OverBudget);
      // The thread it held was replaced: the pool still scores.
      const timed = await scorer.score([{ id: 'a', verifier: 'qa', response: '\\boxed{A}', label: { choice: 'A' }, groupId: '', responseTokens: 0, metadata: {} }]);
      expect(timed.map((t) => t.result.status)).toEqual(['OK']);
    } finally {
      await scorer.close();
    }
  });

  it('within the budget: one reply with every row written on the thread', async () => {
    const scorer = await localScorer({ workers: 1, config: parseConfig({}) });
    try {
      const reply = await scorer.rows!(await oneBlock(10), 0, rules, 'jsonl');
      expect(reply.parts.every((part) => typeof part !== 'number')).toBe(true);
      const text = Buffer.concat(reply.parts as Uint8Array[]).toString('utf8');
      expect(text.trimEnd().split('\n').map((l) => (JSON.parse(l) as { status: string }).status)).toEqual(Array(10).fill('STATUS_OK'));
      expect(reply.tally.status.length).toBe(10);
    } finally {
      await scorer.close();
    }
  });
});
