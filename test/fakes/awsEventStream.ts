// AWS event-stream framing (application/vnd.amazon.eventstream), as Bedrock's
// invoke-with-response-stream sends it: each Messages API stream event becomes a `chunk` event whose
// JSON payload carries the event's JSON base64-encoded in `bytes`.
// Frame: total length, headers length, prelude CRC32, headers, payload, message CRC32 (all big-endian).
import { crc32 } from 'node:zlib';
import type { SseEvent } from './sse';

const STRING_TYPE = 7;

export function encodeEventStreamFrame(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const headerParts = Object.entries(headers).map(([name, value]) => {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const part = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
    part.writeUInt8(n.length, 0);
    n.copy(part, 1);
    part.writeUInt8(STRING_TYPE, 1 + n.length);
    part.writeUInt16BE(v.length, 2 + n.length);
    v.copy(part, 4 + n.length);
    return part;
  });
  const headerBytes = Buffer.concat(headerParts);
  const total = 12 + headerBytes.length + payload.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, 12);
  Buffer.from(payload).copy(frame, 12 + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

export function bedrockChunk(event: SseEvent): Uint8Array {
  const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event.data), 'utf8').toString('base64') }), 'utf8');
  return encodeEventStreamFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, payload);
}
