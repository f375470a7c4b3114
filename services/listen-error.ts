/** A listener that could not start: which one, where, and why (a busy port, a bad address). */
export class ListenError extends Error {
  constructor(
    readonly api: 'grpc' | 'http',
    readonly host: string,
    readonly port: number,
    cause: unknown,
  ) {
    const why = (cause as NodeJS.ErrnoException)?.code === 'EADDRINUSE' || /No address added/.test(String(cause))
      ? 'the port is in use (another server?)'
      : cause instanceof Error ? cause.message : String(cause);
    super(`${api === 'grpc' ? 'gRPC' : 'HTTP'} on ${host}:${port}: cannot listen: ${why}`);
  }
}
