import type { Status } from './sample';

/**
 * The one status table: a result's status as the domain names it (`OK`, as the HTTP API and the logs
 * write it) and as the proto's enum names it (`STATUS_OK`, as gRPC's JSON and result files write it).
 * Readers of either form go through `statusOf`, so no module keeps a table of its own.
 */
export const STATUSES: readonly Status[] = ['OK', 'INVALID', 'ABORTED'];

export const STATUS_NAMES: Readonly<Record<Status, string>> = {
  OK: 'STATUS_OK',
  INVALID: 'STATUS_INVALID',
  ABORTED: 'STATUS_ABORTED',
};

const BY_NAME = new Map<string, Status>(STATUSES.flatMap((s) => [[s, s] as [string, Status], [STATUS_NAMES[s], s] as [string, Status]]));

/** `STATUS_OK` or `OK` → `OK`; anything else (STATUS_UNSPECIFIED, a typo, not a string) → null. */
export function statusOf(name: unknown): Status | null {
  return typeof name === 'string' ? (BY_NAME.get(name) ?? null) : null;
}

/** What an error says a status field should have held. */
export const STATUS_EXPECTED = 'expected STATUS_OK, STATUS_INVALID or STATUS_ABORTED';
