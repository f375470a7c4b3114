/**
 * What services report as they run, for whoever watches (the server's metrics): each service calls
 * its observer and knows nothing of Prometheus; `Metrics` implements the observers.
 */

/** The sandbox's slots. */
export interface SandboxObserver {
  /** A slot took (`+1`) or released (`-1`) a program to run. */
  slotBusy(delta: 1 | -1): void;
  /** A slot (zygote) process was started, at start-up or to replace one. */
  slotStarted(): void;
  /** A slot process was killed; `reason` is short and from a fixed set (`deadline`, `sandbox_timeout`, …). */
  slotKilled(reason: string): void;
}

/** An observer that hears nothing: the default where no one watches. */
export const UNOBSERVED_SANDBOX: SandboxObserver = { slotBusy() {}, slotStarted() {}, slotKilled() {} };
