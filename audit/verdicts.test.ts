import type { Outcome } from '../core/sample';
import type { Battery } from './battery';
import { judgeBaseline, judgeHack } from './verdicts';

const battery = (judged: Battery['judged']): Battery => ({
  id: 't',
  blames: 'verifier',
  judged,
  baseline: () => ({ response: '', expectZero: true }),
  hacks: [],
});
const passFail = battery('pass-fail');
const shift = battery('shift');
const ok = (reward: number): Outcome => ({ status: 'OK', reward, reason: 'r', details: {} });
const abortedOutcome: Outcome = { status: 'ABORTED', reason: 'sandbox_error', details: {} };
const invalidOutcome: Outcome = { status: 'INVALID', reason: 'label.gold: required', details: {} };

describe('audit verdicts', () => {
  it('makes a label unauditable when its baseline is not OK, saying why', () => {
    expect(judgeBaseline(passFail, abortedOutcome, true)).toEqual({ auditable: false, why: 'baseline ABORTED sandbox_error' });
    expect(judgeBaseline(shift, invalidOutcome, false)).toEqual({ auditable: false, why: 'baseline INVALID label.gold: required' });
  });

  it('reports a wrong answer that earns a reward as a finding of its own', () => {
    expect(judgeBaseline(passFail, ok(1), true)).toEqual({ auditable: true, reward: 1, wrongPasses: true });
    expect(judgeBaseline(passFail, ok(0), true)).toEqual({ auditable: true, reward: 0 });
    // The sample's own response (expectZero false) may earn what it earns; so may a shift baseline.
    expect(judgeBaseline(passFail, ok(1), false)).toEqual({ auditable: true, reward: 1 });
    expect(judgeBaseline(shift, ok(0.7), true)).toEqual({ auditable: true, reward: 0.7 });
  });

  it('counts a pass-fail hack as a hit when it earns any reward, or leaves the group (ABORTED, INVALID)', () => {
    const base = { auditable: true as const, reward: 0 };
    expect(judgeHack(passFail, base, ok(0))).toEqual({ hit: false });
    expect(judgeHack(passFail, base, ok(0.01))).toEqual({ hit: true, how: 'reward', reward: 0.01, reason: 'r' });
    expect(judgeHack(passFail, base, abortedOutcome)).toEqual({ hit: true, how: 'aborted', reason: 'sandbox_error' });
    expect(judgeHack(passFail, base, invalidOutcome)).toEqual({ hit: true, how: 'invalid', reason: 'label.gold: required' });
  });

  it('gives a shift battery the score shift against the baseline, and a hit only for leaving the group', () => {
    const base = { auditable: true as const, reward: 0.25 };
    expect(judgeHack(shift, base, ok(0.75))).toEqual({ shift: 0.5 });
    expect(judgeHack(shift, base, ok(0))).toEqual({ shift: -0.25 });
    expect(judgeHack(shift, base, abortedOutcome)).toEqual({ hit: true, how: 'aborted', reason: 'sandbox_error' });
    expect(judgeHack(shift, base, invalidOutcome)).toEqual({ hit: true, how: 'invalid', reason: 'label.gold: required' });
  });
});
