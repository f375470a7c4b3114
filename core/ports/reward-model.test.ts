import { rewardModelAborted } from './reward-model';

describe('reward-model port', () => {
  it('turns a failed score into ABORTED with its reason, never a reward', () => {
    const outcome = rewardModelAborted({ ok: false, reason: 'reward_model_rejected', message: 'HTTP 400: bad template', attempts: 2 }, 'rm-a');
    expect(outcome).toEqual({
      status: 'ABORTED',
      reason: 'reward_model_rejected',
      details: { endpoint: 'rm-a', attempts: 2, message: 'HTTP 400: bad template' },
    });
    expect(outcome).not.toHaveProperty('reward');
  });
});
