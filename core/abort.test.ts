import { getEventListeners } from 'node:events';
import { abortReason, onAbort, sleep } from './abort';

describe('onAbort', () => {
  it('calls every subscriber once when the signal aborts, through a single listener', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    for (let i = 0; i < 1000; i++) onAbort(controller.signal, () => calls.push(i));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort('deadline');
    controller.abort('again');
    expect(calls).toHaveLength(1000);
    expect(new Set(calls).size).toBe(1000);
  });

  it('calls at once when the signal has already aborted, and an unsubscribed one never', () => {
    const aborted = AbortSignal.abort();
    const early = jest.fn();
    onAbort(aborted, early);
    expect(early).toHaveBeenCalledTimes(1);

    const controller = new AbortController();
    const kept = jest.fn();
    const dropped = jest.fn();
    onAbort(controller.signal, kept);
    const unsubscribe = onAbort(controller.signal, dropped);
    unsubscribe();
    controller.abort();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(dropped).not.toHaveBeenCalled();
  });
});

describe('abortReason', () => {
  it('is the engine\'s string reason, else "cancelled"', () => {
    const controller = new AbortController();
    controller.abort('shutdown');
    expect(abortReason(controller.signal)).toBe('shutdown');
    expect(abortReason(AbortSignal.abort(new Error('boom')))).toBe('cancelled');
    expect(abortReason(AbortSignal.abort())).toBe('cancelled');
  });
});

describe('sleep', () => {
  it('resolves true when it runs its course and false when aborted before or during, never rejecting', async () => {
    await expect(sleep(1)).resolves.toBe(true);
    await expect(sleep(60_000, AbortSignal.abort())).resolves.toBe(false);
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort();
    await expect(slept).resolves.toBe(false);
  });
});
