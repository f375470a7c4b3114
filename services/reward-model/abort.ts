type Subscribers = Set<() => void>;

const bySignal = new WeakMap<AbortSignal, Subscribers>();

/**
 * Calls `fn` when `signal` aborts; returns the unsubscribe. All subscribers of one signal share a
 * single listener: the engine hands the same signal to every sample of a batch, and thousands of
 * listeners on one AbortSignal would trip Node's leak warning and slow every abort.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
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
