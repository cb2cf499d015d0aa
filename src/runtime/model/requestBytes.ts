// A request body's bytes, exactly as JSON.stringify would write them, without serialising the history
// again on every request. Committed entries are deep-frozen (Session.commit, SessionStore's stream-in), so a
// frozen object's JSON never changes: it is written once and remembered beside the object. A parent's next
// request, and a fork's first request (its inherited entries are the parent's own objects), then cost one
// lookup per message plus the new messages — not the JSON encoder over the whole history on the runtime's
// only thread. The bytes go to the SDK as a Buffer, so fetch measures their length in O(1) instead of
// scanning a string (undici's USV check and Buffer.byteLength).
const jsonOfFrozen = new WeakMap<object, string>();

/** JSON.stringify(value) for the plain data of a request body (no toJSON, no cycles), reusing frozen parts. */
export function encodeJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Object.isFrozen(value)) {
    let json = jsonOfFrozen.get(value);
    if (json === undefined) {
      json = JSON.stringify(value);
      jsonOfFrozen.set(value, json);
    }
    return json;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  if (Array.isArray(value)) {
    // As JSON.stringify: undefined and functions in an array become null.
    return `[${value.map(item => (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : encodeJson(item))).join(',')}]`;
  }
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // As JSON.stringify: undefined, functions and symbols are left out of objects.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${encodeJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}

/** The UTF-8 bytes of the body's JSON. */
export function requestBytes(body: object): Buffer {
  return Buffer.from(encodeJson(body), 'utf8');
}
