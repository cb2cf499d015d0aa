// Deterministic ids for one fake server, and the thinking signatures it issues and later checks.
import { createHash } from 'node:crypto';

export class IdSource {
  private toolUses = 0;
  private messages = 0;

  /** A long-lived server (the demo) passes a per-process prefix, so a conversation that outlives one server keeps unique ids. */
  constructor(private readonly prefix = '') {}

  toolUseId(): string {
    this.toolUses += 1;
    return `toolu_${this.prefix}${this.toolUses}`;
  }

  messageId(): string {
    this.messages += 1;
    return `msg_fake${this.prefix}${String(this.messages).padStart(16, '0')}`;
  }
}

/** The real API signs thinking blocks and rejects altered ones; a hash of the text plays that role here. */
export function thinkingSignature(thinking: string): string {
  return createHash('sha256').update(`fake-thinking:${thinking}`).digest('base64');
}

/** Signatures of the 5.5 models' bound thinking blocks start so (preservedThinking.ts signs and checks them). */
export const BOUND_SIGNATURE_PREFIX = 'fkb1.';

export function isBoundSignature(signature: unknown): boolean {
  return typeof signature === 'string' && signature.startsWith(BOUND_SIGNATURE_PREFIX);
}
