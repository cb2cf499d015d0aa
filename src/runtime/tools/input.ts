// Input validation shared by the tools: a model's malformed call must come back as a clear ToolError,
// never as a TypeError deep inside a tool.
import { ToolError } from './types';

export type Fields = Record<string, unknown>;

/** Checks that input is a plain object whose keys are all in `allowed`. */
export function expectObject(tool: string, input: unknown, allowed: readonly string[]): Fields {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ToolError(`${tool}: input must be a JSON object with fields ${allowed.join(', ')}.`);
  }
  const fields = input as Fields;
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) {
      throw new ToolError(`${tool}: unknown field "${key}" (accepted fields: ${allowed.join(', ')}).`);
    }
  }
  return fields;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export function requireString(tool: string, fields: Fields, key: string): string {
  const value = fields[key];
  if (value === undefined) throw new ToolError(`${tool}: missing required field "${key}" (a string).`);
  if (typeof value !== 'string') throw new ToolError(`${tool}: "${key}" must be a string, got ${typeName(value)}.`);
  return value;
}

export function optionalString(tool: string, fields: Fields, key: string): string | undefined {
  // null is treated as "not given": models sometimes send explicit nulls for optional fields.
  if (fields[key] === undefined || fields[key] === null) return undefined;
  return requireString(tool, fields, key);
}

export function optionalBoolean(tool: string, fields: Fields, key: string): boolean | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ToolError(`${tool}: "${key}" must be a boolean, got ${typeName(value)}.`);
  return value;
}

export function optionalInteger(tool: string, fields: Fields, key: string, min: number, max: number): number | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const got = typeof value === 'number' ? String(value) : typeName(value);
    throw new ToolError(`${tool}: "${key}" must be an integer from ${min} to ${max}, got ${got}.`);
  }
  return value;
}

/** Reads a string field for describe(): never throws, shortens long values to one line. */
export function peekString(input: unknown, key: string, max = 80): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const value = (input as Fields)[key];
  if (typeof value !== 'string') return undefined;
  const line = value.trim().replace(/\s*\n[\s\S]*$/, ' …');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Wraps a describe() body so a bug or odd input can never throw out of it. */
export function safeDescribe(fallback: string, body: () => string): string {
  try {
    return body();
  } catch {
    return fallback;
  }
}
