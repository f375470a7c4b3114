import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as grpc from '@grpc/grpc-js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Who may call the server: an optional bearer token on gRPC and HTTP, and TLS for gRPC. Health is
 * always open, so kubelet probes and load balancers need no secret; everything else (scoring,
 * `/metrics`, reflection) needs the token once one is set.
 */

/**
 * grpc-js (~70 modules) is required by the functions that build a gRPC interceptor or credentials,
 * not at import: the CLI reads tokens and client files here (`verdict score`, every command's error
 * line) without starting a gRPC stack.
 */
function grpcJs(): typeof grpc {
  return require('@grpc/grpc-js') as typeof grpc;
}

/** The environment variable that holds the token when no token file is given. */
export const TOKEN_ENV = 'VERDICT_AUTH_TOKEN';

export class AuthSetupError extends Error {}

export interface TokenSource {
  /** `--auth-token-file`: a file whose content (trimmed) is the token; wins over the environment. */
  file?: string;
  env?: NodeJS.ProcessEnv;
}

/** The token from the file or `VERDICT_AUTH_TOKEN`; null when neither is set (no authentication). */
export function loadToken(source: TokenSource): string | null {
  if (source.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(source.file, 'utf8');
    } catch (error) {
      throw new AuthSetupError(`--auth-token-file ${source.file}: cannot read (${(error as Error).message})`);
    }
    const token = text.trim();
    if (token === '') throw new AuthSetupError(`--auth-token-file ${source.file}: the file is empty`);
    return token;
  }
  const fromEnv = (source.env ?? process.env)[TOKEN_ENV]?.trim();
  return fromEnv ? fromEnv : null;
}

/** Compares in constant time over fixed-length digests, so neither content nor length leaks by timing. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `Bearer <token>` (scheme in any case) → the token; anything else → null. */
function bearer(header: string | undefined): string | null {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const OPEN_GRPC_PREFIX = '/grpc.health.v1.Health/';

/** Refuses gRPC calls without the bearer token (`UNAUTHENTICATED`), except health checks. */
export function grpcAuth(token: string): grpc.ServerInterceptor {
  const grpc = grpcJs();
  return (method, call) => {
    if (method.path.startsWith(OPEN_GRPC_PREFIX)) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, nextMetadata) {
            const header = metadata.get('authorization')[0];
            const given = bearer(typeof header === 'string' ? header : undefined);
            if (given !== null && sameToken(given, token)) return nextMetadata(metadata);
            call.sendStatus({
              code: grpc.status.UNAUTHENTICATED,
              details: given === null ? 'missing bearer token (metadata "authorization: Bearer <token>")' : 'wrong bearer token',
            });
          },
        });
      },
    });
  };
}

/**
 * `/` is the playground's static page: it holds no data and asks the user for the token, which its
 * API calls then carry (a browser cannot send a bearer header on a plain page load).
 */
const OPEN_HTTP_PATHS = new Set(['/healthz', '/']);

/** Answers 401 to HTTP requests without the bearer token, except `/healthz` and the playground page. */
export function httpAuth(token: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (OPEN_HTTP_PATHS.has(req.path)) return next();
    const given = bearer(req.get('authorization'));
    if (given !== null && sameToken(given, token)) return next();
    res
      .status(401)
      .setHeader('WWW-Authenticate', 'Bearer')
      .json({
        error: {
          code: 'UNAUTHENTICATED',
          message: given === null ? 'missing bearer token (header "Authorization: Bearer <token>")' : 'wrong bearer token',
        },
      });
  };
}

export interface TlsFiles {
  /** PEM certificate chain the server presents. */
  certFile: string;
  /** PEM private key of that certificate. */
  keyFile: string;
  /** PEM CA bundle: when given, clients must present a certificate it signed (mutual TLS). */
  clientCaFile?: string;
}

function readPem(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new AuthSetupError(`${option} ${file}: cannot read (${(error as Error).message})`);
  }
}

/** TLS credentials from PEM files, or plaintext when none are given. */
export function grpcServerCredentials(tls: TlsFiles | null): grpc.ServerCredentials {
  const grpc = grpcJs();
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const cert = readPem('--tls-cert', tls.certFile);
  const key = readPem('--tls-key', tls.keyFile);
  const ca = tls.clientCaFile !== undefined ? readPem('--tls-client-ca', tls.clientCaFile) : null;
  try {
    return grpc.ServerCredentials.createSsl(ca, [{ cert_chain: cert, private_key: key }], ca !== null);
  } catch (error) {
    throw new AuthSetupError(`--tls-cert/--tls-key: ${(error as Error).message}`);
  }
}

/** How a client reaches a server that wants a token and/or TLS. */
export interface ClientAuth {
  /** Sent as `authorization: Bearer <token>` on every call. */
  token?: string;
  /** TLS: the CA that signed the server's certificate, and a client certificate for mutual TLS. */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
}

/** Files a client names for a server's token and TLS (`verdict score --server`). */
export interface ClientAuthFiles {
  /** `--auth-token-file`; else `VERDICT_AUTH_TOKEN`; neither = no token. */
  tokenFile?: string;
  /** `--tls-ca`: PEM CA that signed the server's certificate; turns TLS on. */
  caFile?: string;
  /** `--tls-cert` and `--tls-key`: a client certificate for mutual TLS. */
  certFile?: string;
  keyFile?: string;
}

/** Reads what `ClientAuthFiles` names; every problem is an `AuthSetupError` naming its option. */
export function loadClientAuth(files: ClientAuthFiles, env: NodeJS.ProcessEnv = process.env): ClientAuth {
  if ((files.certFile === undefined) !== (files.keyFile === undefined)) throw new AuthSetupError('--tls-cert and --tls-key go together');
  if (files.certFile !== undefined && files.caFile === undefined) throw new AuthSetupError('--tls-cert and --tls-key need --tls-ca (the CA of the server)');
  const read = (option: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new AuthSetupError(`${option} ${file}: cannot read (${(error as Error).message})`);
    }
  };
  const token = loadToken(files.tokenFile !== undefined ? { file: files.tokenFile, env } : { env });
  const auth: ClientAuth = token !== null ? { token } : {};
  if (files.caFile !== undefined) {
    auth.tls = {
      ca: read('--tls-ca', files.caFile),
      ...(files.certFile !== undefined && files.keyFile !== undefined ? { cert: read('--tls-cert', files.certFile), key: read('--tls-key', files.keyFile) } : {}),
    };
  }
  return auth;
}

/** Adds the bearer token to every call's metadata; works on plaintext and TLS channels alike. */
export function bearerInterceptor(token: string): grpc.Interceptor {
  const grpc = grpcJs();
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set('authorization', `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}

/** Channel credentials and interceptors for `auth`: plaintext unless it names a CA. */
export function grpcClientAuth(auth: ClientAuth = {}): { credentials: grpc.ChannelCredentials; interceptors: grpc.Interceptor[] } {
  const grpc = grpcJs();
  const credentials = auth.tls
    ? grpc.credentials.createSsl(auth.tls.ca, auth.tls.key ?? null, auth.tls.cert ?? null)
    : grpc.credentials.createInsecure();
  return { credentials, interceptors: auth.token !== undefined ? [bearerInterceptor(auth.token)] : [] };
}
