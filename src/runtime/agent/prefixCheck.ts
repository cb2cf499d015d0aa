// The proof, in tests, that a kept prefix (agent/requestPrefix.ts) sends exactly the whole build's bytes. The
// prefix is matched by its key and by identity of the entries at its two ends only, on the ground that an
// entry is immutable and a history changes only by appending or by a new list (a rewind, a repair) whose end
// entries differ. With FORK_AGENTS_CHECK_PREFIX=1 (every runtime test: test/runtime/harness.ts) each request
// that reused a prefix is built again whole and compared byte for byte; a difference fails the request
// instead of sending it. Off in production: the whole build is the O(history) cost the prefix saves.
import type { BuiltRequest } from './request';
import type { MessagesRequestBody } from '../model/wire';
import { requestTtl } from '../model/wire';

export class PrefixMismatchError extends Error {}

const enabled = process.env.FORK_AGENTS_CHECK_PREFIX === '1';

/** Whether requests are checked (the environment's knob, or `force`). */
export function checksPrefix(force = false): boolean {
  return enabled || force;
}

/** Throws when `built` (which reused a prefix) is not byte for byte `whole()`, JSON.stringify's streaming body. */
export function checkKeptPrefix(built: BuiltRequest, whole: () => MessagesRequestBody, force = false): void {
  if (!built.prefix || !checksPrefix(force)) return;
  const body = whole();
  const expected = Buffer.from(JSON.stringify({ ...body, stream: true }), 'utf8');
  const sent = Buffer.concat(built.encoded.chunks);
  if (sent.length !== built.encoded.byteLength || !sent.equals(expected) || built.ttl !== requestTtl(body)) {
    let at = 0;
    while (at < sent.length && sent[at] === expected[at]) at++;
    throw new PrefixMismatchError(`A kept request prefix differs from the whole build at byte ${at} of ${expected.length} (${sent.length} built, TTL ${built.ttl}/${requestTtl(body)}): not sent.`);
  }
}
