// Error bodies and statuses shaped like the real Messages API, so clients map them to the same SDK errors.
import type { ServerResponse } from 'node:http';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

/** Thrown by the validators; the server turns it into a JSON error response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A 400 invalid_request_error with `message`. */
export function invalid(message: string): never {
  throw new ApiError(400, 'invalid_request_error', message);
}

let requestCounter = 0;

export function nextRequestId(): string {
  requestCounter += 1;
  return `req_fake${String(requestCounter).padStart(20, '0')}`;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'request-id': nextRequestId(),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, { type: 'error', error: { type: error.type, message: error.message } }, error.headers);
}
