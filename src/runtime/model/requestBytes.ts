// A request body's bytes, exactly as JSON.stringify would write them, without encoding the history again
// on every request. Committed entries are deep-frozen (Session.commit, SessionStore's stream-in), so a frozen
// object's JSON never changes: its UTF-8 bytes are made once and kept beside the object. A parent's next
// request, and a fork's first request (its inherited entries are the parent's own objects), then cost one
// lookup per message and a copy of bytes, plus encoding what is new — not the JSON encoder and the UTF-8
// encoder over the whole history on the runtime's only thread. The result is a Buffer, so fetch knows its
// length in O(1) instead of scanning a string (undici's USV check and Buffer.byteLength).
const bytesOfFrozen = new WeakMap<object, Buffer>();

/** UTF-8 bytes of JSON.stringify(value) for the plain data of a request body (no cycles), reusing frozen parts. */
export function requestBytes(value: object): Buffer {
  const out = new Pieces();
  write(value, out);
  return out.join();
}

class Pieces {
  private readonly buffers: Buffer[] = [];
  private text = '';

  add(text: string): void {
    this.text += text;
  }

  addBytes(bytes: Buffer): void {
    if (this.text) this.buffers.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
    this.buffers.push(bytes);
  }

  join(): Buffer {
    if (this.text) this.buffers.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
    return this.buffers.length === 1 ? this.buffers[0] : Buffer.concat(this.buffers);
  }
}

function write(value: unknown, out: Pieces): void {
  if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    out.add(JSON.stringify(value));
    return;
  }
  if (Object.isFrozen(value)) {
    let bytes = bytesOfFrozen.get(value);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(value), 'utf8');
      bytesOfFrozen.set(value, bytes);
    }
    out.addBytes(bytes);
    return;
  }
  if (Array.isArray(value)) {
    out.add('[');
    value.forEach((item, i) => {
      if (i > 0) out.add(',');
      // As JSON.stringify: undefined, functions and symbols in an array become null.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.add('null');
      else write(item, out);
    });
    out.add(']');
    return;
  }
  out.add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // As JSON.stringify: undefined, functions and symbols are left out of objects.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    write(item, out);
  }
  out.add('}');
}
