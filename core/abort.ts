type Subscribers = Set<() => void>;

const bySignal = new WeakMap<AbortSignal, Subscribers>();

/**
 * Calls `fn` when `signal` aborts (at once when it already has); returns the unsubscribe. All
 * subscribers of one signal share a single listener: the engine hands the same signal to every
 * sample of a batch, and thousands of listeners on one AbortSignal would trip Node's leak warning
 * and slow every abort. The one way Verdict fans an abort out.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => {};
  }
  let subscribers = bySignal.get(signal);
  if (!subscribers) {
    const created: Subscribers = new Set();
    subscribers = created;
    bySignal.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        bySignal.delete(signal);
        for (const subscriber of created) subscriber();
      },
      { once: true },
    );
  }
  subscribers.add(fn);
  const own = subscribers;
  return () => own.delete(fn);
}

/**
 * Why `signal` aborted, as the short reason string results carry: the engine aborts with
 * "deadline", "shutdown" or "cancelled"; anything else reads as "cancelled".
 */
export function abortReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

/** Resolves after `ms` with true, or early with false when `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    let unsubscribe = () => {};
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(true);
    }, ms);
    if (signal) {
      unsubscribe = onAbort(signal, () => {
        clearTimeout(timer);
        resolve(false);
      });
    }
  });
}
