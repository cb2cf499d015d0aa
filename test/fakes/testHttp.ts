// Small helpers for tests that talk to the fake server over plain HTTP (no SDK), and wait on its events.
import type { FakeAnthropic, ReceivedRequest } from './anthropicServer';

export const TEST_KEY = 'sk-ant-fake-test-key';
export const MODEL = 'claude-fake-1';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export function apiHeaders(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'x-api-key': TEST_KEY,
    'anthropic-version': '2023-06-01',
    ...extra,
  };
  // An explicit undefined removes a default header.
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

export async function post(
  server: FakeAnthropic,
  body: unknown,
  options: { path?: string; headers?: Record<string, string | undefined>; raw?: string } = {},
): Promise<HttpResult> {
  const response = await fetch(`${server.url}${options.path ?? '/v1/messages'}`, {
    method: 'POST',
    headers: apiHeaders(options.headers),
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A minimal valid request body; `extra` overrides or adds top-level fields. */
export function requestBody(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: MODEL, max_tokens: 1024, messages, ...extra };
}

export function user(...content: unknown[]): { role: 'user'; content: unknown[] } {
  return { role: 'user', content };
}

export function assistant(...content: unknown[]): { role: 'assistant'; content: unknown[] } {
  return { role: 'assistant', content };
}

export function text(value: string, cacheControl?: { type: 'ephemeral'; ttl?: '5m' | '1h' }): Record<string, unknown> {
  return cacheControl ? { type: 'text', text: value, cache_control: cacheControl } : { type: 'text', text: value };
}

/** Resolves with the next exchange that ends (optionally matching `accept`). */
export function nextResponse(server: FakeAnthropic, accept: (r: ReceivedRequest) => boolean = () => true): Promise<ReceivedRequest> {
  return new Promise(resolve => {
    const off = server.onResponse(r => {
      if (!accept(r)) return;
      off();
      resolve(r);
    });
  });
}

/** Resolves with the next request to arrive. */
export function nextRequest(server: FakeAnthropic): Promise<ReceivedRequest> {
  return new Promise(resolve => {
    const off = server.onRequest(r => {
      off();
      resolve(r);
    });
  });
}
