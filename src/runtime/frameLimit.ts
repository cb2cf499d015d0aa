// Caps the JSON-RPC frames a connection may send, before the JSON-RPC reader buffers them: the reader
// accumulates a frame's body until its Content-Length arrives, so an unauthenticated client announcing
// 4 GB could make the runtime hold as much as it cared to send. The guard follows the same framing
// (headers up to a blank line, then Content-Length bytes) and ends the connection at the first header that
// announces too much, before the body is buffered.
import type * as net from 'node:net';

/** Before the token: `initialize` carries the token and a client name, well under this. */
export const PRE_AUTH_FRAME_BYTES = 8 * 1024;
/**
 * After it: above the largest request the Messages API itself accepts (32 MB), so no message a client
 * legitimately sends (a chat's request through `model/chat`, a prompt with images) comes near it.
 */
export const FRAME_BYTES = 64 * 1024 * 1024;
/** A header block longer than this is not JSON-RPC framing. */
const HEADER_BYTES = 1024;

/** Watches `socket`'s data; `admitted` says which limit applies now; `onOverflow` is told why it closed. */
export function limitFrames(socket: net.Socket, admitted: () => boolean, onOverflow: (why: string) => void): void {
  let header = '';
  let bodyLeft = 0;
  const overflow = (why: string) => {
    onOverflow(why);
    socket.destroy();
  };
  socket.on('data', (chunk: Buffer) => {
    let offset = 0;
    while (offset < chunk.length && !socket.destroyed) {
      if (bodyLeft > 0) {
        const taken = Math.min(bodyLeft, chunk.length - offset);
        bodyLeft -= taken;
        offset += taken;
        continue;
      }
      const end = chunk.indexOf('\r\n\r\n', offset);
      const piece = chunk.toString('latin1', offset, end < 0 ? chunk.length : end + 4);
      header += piece;
      offset += piece.length;
      // A blank line split across chunks: look for it in what was joined.
      const blank = header.indexOf('\r\n\r\n');
      if (blank < 0) {
        if (header.length > HEADER_BYTES) return overflow(`a frame header longer than ${HEADER_BYTES} bytes`);
        continue;
      }
      // A blank line split across chunks: what followed it in this chunk is read again as body.
      offset -= header.length - (blank + 4);
      const length = Number(/(?:^|\r\n)content-length:\s*(\d+)/i.exec(header.slice(0, blank))?.[1] ?? NaN);
      header = '';
      const limit = admitted() ? FRAME_BYTES : PRE_AUTH_FRAME_BYTES;
      if (!Number.isFinite(length)) return overflow('a frame without a Content-Length');
      if (length > limit) return overflow(`a ${length}-byte frame (the limit ${admitted() ? 'is' : 'before the token is'} ${limit} bytes)`);
      bodyLeft = length;
    }
  });
}
