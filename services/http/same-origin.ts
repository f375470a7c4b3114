import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Cross-site request forgery defence for a server without a token. Any web page open in a browser
 * on the host can send a "simple" request (a form, or `fetch` with `Content-Type: text/plain`) to
 * `http://127.0.0.1:8080/v1/score` without a CORS preflight; with no token to check, the server would
 * score it and run sandboxes on a stranger's behalf. Two checks close that:
 *
 * - A request that carries an `Origin` (browsers send one on every cross-origin request and on every
 *   POST) must come from the server's own origin or one the operator allowed (`--allow-origin`).
 *   The server's own origin is the `Host` it was reached by, but only when that host is an IP address
 *   or `localhost`: a name could be a DNS-rebinding page (`evil.example` re-pointed at 127.0.0.1), whose
 *   Origin and Host agree. Clients that are not browsers send no Origin and pass.
 * - A POST's body is read as JSON only under a JSON content type (`application/json`, `…+json`). Every
 *   other type is one a page may send cross-origin without a preflight; `application/json` is not, and
 *   this server answers no preflight.
 */

/** `http://example.com:8080/` → `http://example.com:8080`: the form browsers send in `Origin`. */
export function normalOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

const IP_OR_LOCALHOST = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

/** Whether `origin` names the host the request was sent to, reached by address or as localhost. */
function ownOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (!IP_OR_LOCALHOST.test(url.hostname)) return false;
  return url.host.toLowerCase() === host.toLowerCase();
}

function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

function refuse(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/** The two checks above, in front of every route; `allowed` are origins (`https://dash.example:3000`) the operator trusts. */
export function sameOriginOnly(allowed: readonly string[] = []): RequestHandler {
  const trusted = new Set(allowed.map((o) => normalOrigin(o) ?? o));
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin !== undefined && trusted.has(origin)) {
      // An allowed page calls with a JSON body, which the browser first asks about (a CORS preflight).
      res.setHeader('Access-Control-Allow-Origin', origin).setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res
          .setHeader('Access-Control-Allow-Methods', 'GET, POST')
          .setHeader('Access-Control-Allow-Headers', 'content-type, authorization, x-request-id')
          .status(204)
          .end();
        return;
      }
    } else if (origin !== undefined && !ownOrigin(origin, req.get('host'))) {
      return refuse(
        res,
        403,
        'PERMISSION_DENIED',
        `origin ${origin} may not call this server (it has no auth token); start it with --allow-origin ${origin} to allow that page, or --auth-token-file`,
      );
    }
    if (req.method === 'POST' && !isJsonType(req.get('content-type'))) {
      return refuse(
        res,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `request: Content-Type ${req.get('content-type') ?? '(none)'} is not JSON; send the body with "Content-Type: application/json"`,
      );
    }
    next();
  };
}
