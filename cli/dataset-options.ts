import { Option, type Command } from 'commander';
import { loadClientAuth, TOKEN_ENV, type ClientAuth, type ClientAuthFiles } from '../services/auth';
import { mappingFrom, PRESETS, type Mapping, type MappingFlags } from './dataset/mapping';
import { collect } from './options';

/**
 * The flags that say how dataset rows become samples and where they are scored, shared by every
 * command that scores a dataset (`verdict score`, `verdict curate learnability --score`), so the
 * same flag means the same thing everywhere.
 */
export function addMappingOptions(command: Command): Command {
  return command
    .addOption(new Option('--preset <name>', 'column layout of a trainer\'s dump').choices(Object.keys(PRESETS)))
    .option('--response-field <path>', 'column of the response; a list of strings is n rollouts, one sample each, one group')
    .option('--label-field <path>', 'column of the label (dotted path: reward_model.ground_truth)')
    .option('--id-field <path>', 'column of the sample id')
    .option('--group-field <path>', 'column of the group id')
    .option('--tokens-field <path>', 'column of the response token count (a number, or a list per rollout)')
    .option('--prompt-field <path>', 'column of the prompt: chat messages → metadata.messages, a string → metadata.prompt')
    .option('--route-field <path>', 'column whose value picks a --route (default data_source)')
    .option('--route <value=verifier[:field]>', 'rows whose route column is VALUE go to VERIFIER; a plain label fills FIELD ("gold", "answers[]"); VALUE * = any (repeatable)', collect)
    .option('--verifier <name>', 'the verifier of rows that neither their label nor a route names');
}

export function addServerOptions(command: Command): Command {
  return command
    .option('--server <targets>', 'score on running replicas over gRPC: host:port[,host:port…] or dns:///name:port')
    .option('--auth-token-file <file>', `with --server: the bearer token the replicas want (default: $${TOKEN_ENV})`)
    .option('--tls-ca <file>', 'with --server: PEM CA of the replicas\' certificates; connect over TLS')
    .option('--tls-cert <file>', 'with --server and --tls-ca: PEM client certificate for mutual TLS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert');
}

export interface ServerFlags {
  server?: string;
  config?: string;
  authTokenFile?: string;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export function mappingOrThrow(flags: MappingFlags): Mapping {
  const mapping = mappingFrom(flags);
  if (!mapping.ok) throw new Error(mapping.error);
  return mapping.mapping;
}

/** The replicas and how to reach them, or nothing when scoring here; refuses flags that would be ignored. */
export function serverTarget(flags: ServerFlags): { servers: string; serverAuth: ClientAuth } | null {
  if (flags.server && flags.config) throw new Error('--config has no effect with --server: the replicas score with their own config');
  const given = Object.entries({ '--auth-token-file': flags.authTokenFile, '--tls-ca': flags.tlsCa, '--tls-cert': flags.tlsCert, '--tls-key': flags.tlsKey }).filter(([, v]) => v !== undefined);
  if (!flags.server) {
    if (given.length > 0) throw new Error(`${given.map(([k]) => k).join(', ')}: only with --server`);
    return null;
  }
  const files = { tokenFile: flags.authTokenFile, caFile: flags.tlsCa, certFile: flags.tlsCert, keyFile: flags.tlsKey };
  return { servers: flags.server, serverAuth: loadClientAuth(Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined)) as ClientAuthFiles) };
}
