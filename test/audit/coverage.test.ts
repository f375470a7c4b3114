import { z } from 'zod';
import { auditCoverage, BATTERIES, batteriesFor } from '../../audit/batteries';
import { ok } from '../../core/sample';
import { definePure } from '../../core/verifier';
import { renderAudit, type AuditReport } from '../../cli/audit/audit';
import { VERIFIERS } from '../../verifiers';

/** Which verifiers `verdict audit` covers comes from their definitions (`audit`), not from a list in the batteries. */

/** A newcomer's verifier: one definition, no battery named. */
const echo = definePure({
  name: 'echo',
  version: '0.1.0',
  description: 'test verifier: reward 1 when the response is the label text',
  label: z.strictObject({ text: z.string() }),
  example: { label: { text: 'hi' }, response: 'hi', reward: 1 },
  score: ({ response, label }) => ok(response === label.text ? 1 : 0, response === label.text ? 'same' : 'different'),
});

describe('audit coverage, from the verifier definitions', () => {
  it('covers every registered verifier, and every battery covers one', () => {
    expect(auditCoverage(VERIFIERS)).toEqual({ uncovered: [], unknown: [] });
    const named = new Set(VERIFIERS.flatMap((v) => v.audit ?? []));
    expect(BATTERIES.map((b) => b.id).filter((id) => !named.has(id))).toEqual([]);
  });

  it('gives each verifier the batteries its definition names', () => {
    const byName = (name: string) => VERIFIERS.find((v) => v.name === name);
    expect(batteriesFor(byName('qa')).map((b) => b.id)).toEqual(['answers']);
    expect(batteriesFor(byName('if')).map((b) => b.id).sort()).toEqual(['degenerate-texts', 'judge-injection']);
    expect(batteriesFor(undefined)).toEqual([]);
  });

  it('reports a new verifier that names no battery, and a battery id that does not exist', () => {
    const typo = { ...echo, name: 'typo', audit: ['answer'] };
    const coverage = auditCoverage([...VERIFIERS, echo, typo]);
    expect(coverage).toEqual({ uncovered: ['echo', 'typo'], unknown: [{ verifier: 'typo', battery: 'answer' }] });
    const report: AuditReport = {
      kind: 'verdict.audit',
      version: 1,
      inputs: [],
      labels: 0,
      uncovered: 0,
      coverage,
      audited: 0,
      gameable: 0,
      gameability: 0,
      verifiers: {},
      unauditable: [],
      findings: [],
    };
    const text = renderAudit(report);
    expect(text).toContain('no battery covers: echo, typo');
    expect(text).toContain('typo names battery "answer", which does not exist');
  });
});
