import type { HarborTask } from '../../../core/ports/terminal';

/**
 * The services a task declares (`[verdict] episode_services`, core/harbor-task.ts) in a shared
 * container: the episode's processes of those names are kept through the tests, with what they fork
 * (processes.ts's `kept`: a process whose ancestor is in KEEP); every other one is stopped as usual.
 */

/** The SERVICES variable of the scripts (processes.ts): the names, space-separated. */
export function servicesEnv(task: Pick<HarborTask, 'services'>): string {
  return `SERVICES=${task.services.join(' ')}`;
}

/**
 * `services`: sets KEEP to the pids whose kernel name (`comm`, read with builtins from
 * /proc/PID/stat as `list` reads it) is one of SERVICES, and prints `service <pid> <name>` for each;
 * KEEP stays empty when SERVICES is. `stop_round`: one round of killing the processes `list` found
 * — every process but pid 1 and the script (`kill -1`) when nothing is kept, else each listed pid.
 */
export const SERVICES_SCRIPT = `services() {
  KEEP=
  [ -z "$SERVICES" ] && return 0
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    case " 1 $$ " in *" $p "*) continue ;; esac
    read -r s < "$d/stat" 2>/dev/null || continue
    c=\${s#*\\(}; c=\${c%\\)*}
    case " $SERVICES " in *" $c "*) KEEP="$KEEP $p"; echo "service $p $c" ;; esac
  done
}
stop_round() {
  if [ -z "$KEEP" ]; then kill -s KILL -- -1 2>/dev/null; return; fi
  for p in $pids; do kill -s KILL "$p" 2>/dev/null; done
}`;

/** The `service <pid> <name>` lines of a script's output as the report's `services` (absent when none). */
export function keptServices(output: string): { services?: string[] } {
  const kept: string[] = [];
  for (const line of output.split('\n')) {
    const match = /^service (\d+) (.*)$/.exec(line);
    if (match) kept.push(`${match[1]} ${match[2]}`);
  }
  return kept.length > 0 ? { services: kept } : {};
}
