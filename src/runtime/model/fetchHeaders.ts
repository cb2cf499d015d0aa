// The `Headers` the model bundle's code sees (esbuild.mjs injects it into dist/lazy/model.js in place of the
// global). Node's global Headers is a lazy getter that loads Node's whole bundled undici (its fetch, its
// llhttp WebAssembly): about 10 MB of a runtime's RSS for as long as it lives, for a map of strings the SDK
// builds a few of per request (docs/design.md §2, the model client). Only what the Anthropic SDK calls.
type Init = Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined> | undefined;

/** Node's own Headers (undici's) names itself so; checked by tag, never through the global, which would load it. */
function isPlatformHeaders(value: unknown): value is { entries(): IterableIterator<[string, string]> } {
  return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Headers]';
}

export class FetchHeaders {
  private readonly map = new Map<string, string>();

  /**
   * The cloud SDKs (dist/lazy/cloud.js) make the platform's Headers and hand them to the Anthropic SDK's code
   * here, which asks `instanceof Headers` before reading them as headers: both kinds are headers to it.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && FetchHeaders.prototype.isPrototypeOf(value)) || isPlatformHeaders(value);
  }

  constructor(init?: Init | FetchHeaders) {
    if (!init) return;
    if (init instanceof FetchHeaders || isPlatformHeaders(init) || typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value as string]) this.append(name, one);
    }
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }

  /** As fetch joins repeated headers: with ", " (set-cookie aside, which the API does not send). */
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.map.get(key);
    this.map.set(key, had === undefined ? String(value) : `${had}, ${value}`);
  }

  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string, headers: FetchHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  /** Sorted by name, as fetch's Headers iterate. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.map.keys()].sort()) yield [name, this.map.get(name)!];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'FetchHeaders';
  }
}

export { FetchHeaders as Headers };

/**
 * The SDK asks `body instanceof FormData` of every request body before it asks whether the body is a
 * ReadableStream: through the global, that question alone loads undici. Answered by tag here; the runtime
 * sends no form data (file uploads), and one made here is the platform's own.
 */
export class FormDataStandIn {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object FormData]';
  }

  constructor() {
    return new globalThis.FormData() as unknown as FormDataStandIn;
  }
}

export { FormDataStandIn as FormData };
