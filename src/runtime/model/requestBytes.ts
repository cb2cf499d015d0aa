// A request body's bytes, exactly as JSON.stringify would write them, without encoding the history again
// on every request. Committed entries are deep-frozen (Session.commit, SessionStore's stream-in), so a frozen
// object's JSON never changes: its UTF-8 bytes are made once and kept beside the object. A parent's next
// request, and a fork's first request (its inherited entries are the parent's own objects), then cost one
// lookup per message plus encoding what is new — not the JSON encoder and the UTF-8 encoder over the whole
// history on the runtime's only thread. A body leaves as a list of Buffers (EncodedBody): a prefix of
// messages encoded once (agent/requestPrefix.ts) is sent by reference, never copied into one buffer.
import type { EncodedBody, MessagesRequestBody } from './wire';

const bytesOfFrozen = new WeakMap<object, Buffer>();

/** Pieces this small are joined into chunks of about CHUNK bytes: a socket write per piece would cost more. */
const CHUNK = 1 << 20;

/** UTF-8 bytes of JSON.stringify(value) for the plain data of a request body (no cycles), reusing frozen parts. */
export function requestBytes(value: object): Buffer {
  const out = new Pieces();
  write(value, out);
  return Buffer.concat(out.chunks());
}

/**
 * JSON.stringify(messages) without its brackets (`m0,m1,…`), as chunks of about a megabyte. A kept prefix
 * is then a second copy of those messages' bytes beside each frozen message's own (pointing the latter into
 * the chunks instead cost a WeakMap update per message per request, more than the copy).
 */
export function encodeMessages(messages: readonly object[]): Buffer[] {
  const out = new Pieces();
  messages.forEach((message, i) => {
    if (i > 0) out.add(',');
    write(message, out);
  });
  return out.chunks();
}

/**
 * The bytes of JSON.stringify({ ...body, stream: true }) (the streaming Messages API body), where the first
 * `prefix.count` messages are `prefix.bytes` (encodeMessages of exactly those messages).
 */
export function encodeBody(body: MessagesRequestBody, prefix?: { count: number; bytes: readonly Buffer[] }): EncodedBody {
  const out = new Pieces();
  const value = { ...body, stream: true } as Record<string, unknown>;
  out.add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (key === 'messages' && prefix && prefix.count > 0) {
      out.add('[');
      out.addChunks(prefix.bytes);
      const messages = body.messages;
      for (let i = prefix.count; i < messages.length; i++) {
        out.add(',');
        write(messages[i], out);
      }
      out.add(']');
    } else {
      write(item, out);
    }
  }
  out.add('}');
  const chunks = out.chunks();
  let byteLength = 0;
  for (const chunk of chunks) byteLength += chunk.length;
  return { chunks, byteLength };
}

class Pieces {
  private readonly parts: Buffer[] = [];
  /** Parts already chunk-sized, passed on as they are. */
  private readonly whole = new Set<number>();
  private text = '';

  add(text: string): void {
    this.text += text;
  }

  addBytes(bytes: Buffer): void {
    this.flushText();
    this.parts.push(bytes);
  }

  addChunks(chunks: readonly Buffer[]): void {
    this.flushText();
    for (const chunk of chunks) {
      this.whole.add(this.parts.length);
      this.parts.push(chunk);
    }
  }

  chunks(): Buffer[] {
    this.flushText();
    const out: Buffer[] = [];
    let group: number[] = [];
    let size = 0;
    const close = () => {
      if (group.length === 1) out.push(this.parts[group[0]]);
      else if (group.length > 1) out.push(this.join(group, size));
      group = [];
      size = 0;
    };
    for (let i = 0; i < this.parts.length; i++) {
      if (this.whole.has(i)) {
        close();
        out.push(this.parts[i]);
        continue;
      }
      group.push(i);
      size += this.parts[i].length;
      if (size >= CHUNK) close();
    }
    close();
    return out;
  }

  private join(group: readonly number[], size: number): Buffer {
    const joined = Buffer.allocUnsafe(size);
    let at = 0;
    for (const i of group) {
      const part = this.parts[i];
      // TypedArray#set: a plain memory copy (Buffer#copy checks its arguments on every call).
      joined.set(part, at);
      at += part.length;
    }
    return joined;
  }

  private flushText(): void {
    if (!this.text) return;
    this.parts.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
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
