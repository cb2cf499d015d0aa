// Error bodies and statuses shaped like the real Messages API, so clients map them to the same SDK errors.
// https://platform.claude.com/docs/en/api/errors (read 2026-12-02; the page shows no date): 400
// invalid_request_error, 401 authentication_error, 402 billing_error, 403 permission_error, 404 not_found_error,
// 409 conflict_error, 413 request_too_large, 429 rate_limit_error, 500 api_error, 504 timeout_error, 529
// overloaded_error; "Errors are always returned as JSON, with a top-level error object that always includes a
// type and message value. The response also includes a request_id field", the same id as the request-id header.
import type { ServerResponse } from 'node:http';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, requestId = nextRequestId()): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'request-id': requestId,
    ...headers,
  });
  res.end(text);
}

/** The documented error shape: `{type: "error", error: {type, message}, request_id}`, request_id as in the header. */
export function errorBody(type: ApiErrorType, message: string, requestId: string): unknown {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

export function sendError(res: ServerResponse, error: ApiError): void {
  const requestId = nextRequestId();
  sendJson(res, error.status, errorBody(error.type, error.message, requestId), error.headers, requestId);
}
