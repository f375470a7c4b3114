import { penalizedReward, penaltyFraction, responseLength } from './penalty';

const P = { l0: 1000, lmax: 3000, p_max: 0.4 };

describe('length penalty p = p_max × clamp((len − L0)/(Lmax − L0), 0, 1)', () => {
  it('is 0 up to and at L0', () => {
    expect(penaltyFraction(0, P)).toBe(0);
    expect(penaltyFraction(999, P)).toBe(0);
    expect(penaltyFraction(1000, P)).toBe(0);
  });

  it('rises linearly between L0 and Lmax', () => {
    expect(penaltyFraction(1500, P)).toBeCloseTo(0.1, 12);
    expect(penaltyFraction(2000, P)).toBeCloseTo(0.2, 12);
  });

  it('is exactly p_max at Lmax and stays there beyond', () => {
    expect(penaltyFraction(3000, P)).toBe(0.4);
    expect(penaltyFraction(3001, P)).toBe(0.4);
    expect(penaltyFraction(1e9, P)).toBe(0.4);
  });
});

describe('penalized reward', () => {
  it('scales a positive raw score by (1 − p)', () => {
    expect(penalizedReward(10, 0.4)).toBeCloseTo(6, 12);
    expect(penalizedReward(23.125, 0)).toBe(23.125);
  });

  it('leaves a negative raw score unchanged, however long', () => {
    expect(penalizedReward(-3.8125, 0.4)).toBe(-3.8125);
  });

  it('leaves a zero raw score at zero', () => {
    expect(penalizedReward(0, 0.4)).toBe(0);
  });
});

describe('response length rules', () => {
  it('takes response_tokens from the sample, or counts words / code points in the text', () => {
    expect(responseLength('a b', 17, 'response_tokens')).toBe(17);
    expect(responseLength('  two\twords\n', 0, 'words')).toBe(2);
    expect(responseLength('', 0, 'words')).toBe(0);
    expect(responseLength('こんにちは😀', 0, 'chars')).toBe(6);
  });
});
