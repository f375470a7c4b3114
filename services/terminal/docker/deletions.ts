import type Docker from 'dockerode';
import { execIn } from './exec';

/**
 * A change set's deletions (its whiteouts, services/terminal/tar.ts) in a fresh container of the
 * task's image: the files the episode removed from the image are removed again, before anything of
 * the workspace or the tests is put in, so that a task whose answer is a deletion ("remove the
 * leaked key") is not a quiet 0. Removed as root with `rm -rf`, the image's own command; what
 * cannot be removed is left, and the tests decide. One exec, only when there are deletions.
 */
export async function applyDeletions(docker: Docker, container: Docker.Container, deletions: readonly string[]): Promise<void> {
  if (deletions.length === 0) return;
  await execIn(docker, container, { cmd: ['rm', '-rf', '--', ...deletions], user: '0', workdir: '/', tailBytes: 4096 });
}
