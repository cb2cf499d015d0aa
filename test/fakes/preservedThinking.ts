// The 5.5 models' request rules and preserved thinking as the docs state them, restated here on their own
// (not taken from the engine), read 2026-12-01:
// - https://platform.claude.com/docs/en/build-with-claude/preserved-thinking (+ /prefix-checks,
//   /fix-bound-to-a-different-conversation): each thinking block's signature binds it to the model that
//   wrote it, to the prefix before it (system, tools, earlier messages; cache_control and other parameters
//   excluded; earlier thinking blocks excluded but each block records its predecessor) and, for Sonnet 5.5
//   and Haiku 5.5, to the account. A block the model cannot read, or from another account, is dropped
//   silently; a prefix mismatch is a 400 unless `thinking.block_binding.prefix_mismatch_behavior` is
//   "drop_block" (which drops it and every later block), which needs the beta header
//   `thinking-binding-controls-2026-08-01`; with that header the response reports `input_transformations`.
// - https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5, /models/haiku-5-5/overview,
//   /migration-guide, /build-with-claude/adaptive-thinking, /build-with-claude/effort: adaptive thinking
//   only (budgets 400), thinking cannot be disabled (Sonnet 5.5: use between_tools), forced tool choice
//   400 on Sonnet 5.5 (Haiku 5.5 accepts it and answers with the call, no thinking), sampling only at the
//   defaults, no assistant prefill, display "omitted" by default.
// Not documented in the pages read, chosen here and said so: Opus 5.5's forced tool choice (refused, like
// Sonnet 5.5's), Haiku 5.5's disabled thinking (refused), the wording of the sampling and disabled-thinking 400s.
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { invalid } from './apiErrors';
import { isObject, onlyFields } from './validateMessages';
import type { Json } from './validateMessages';
import { BOUND_SIGNATURE_PREFIX as SIGNATURE_PREFIX, thinkingSignature } from './ids';

export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';
const SECRET = 'fake-anthropic-thinking-key';
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];

interface PreservedModel {
  /** Models whose thinking blocks this one reads (besides its own). */
  reads: string[];
  accountBound: boolean;
  forcedToolChoice: boolean;
  disabledMessage: string;
}

const ADAPTIVE_ONLY = '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const PRESERVED: Record<string, PreservedModel> = {
  'claude-sonnet-5-5': {
    reads: ['claude-sonnet-5', 'claude-opus-4-8', 'claude-haiku-4-5'], accountBound: true, forcedToolChoice: false,
    disabledMessage: 'thinking.type: "disabled" is not supported for this model. To turn off up-front thinking, use thinking.type "between_tools".',
  },
  'claude-opus-5-5': { reads: ['claude-opus-5', 'claude-sonnet-5-5', 'claude-sonnet-5', 'claude-opus-4-8', 'claude-haiku-4-5'], accountBound: false, forcedToolChoice: false, disabledMessage: ADAPTIVE_ONLY },
  'claude-haiku-5-5': { reads: [], accountBound: true, forcedToolChoice: true, disabledMessage: ADAPTIVE_ONLY },
};

export function isPreservedModel(model: string): boolean {
  return model in PRESERVED;
}

export interface Transformation { type: string; path: string; reason: string }

/** What the response needs from the request's check: its thinking config and where new blocks bind. */
export interface BindingContext {
  model: string;
  account: string;
  /** Digest of the request's content (dropped and thinking blocks never count). */
  prefix: PrefixDigest;
  /** The last thinking block the model read, or null. */
  lastRead: string | null;
  display: 'summarized' | 'omitted';
  /** Whether the response carries thinking at all (not on Haiku 5.5 under a forced tool choice, nor between_tools' first call). */
  thinks: boolean;
  transformations?: Transformation[];
}

/** The documented per-model 400s and the thinking-block checks; undefined for other models. */
export function checkPreservedRequest(body: Json, headers: IncomingHttpHeaders, account: string): BindingContext | undefined {
  const rules = PRESERVED[body.model as string];
  if (!rules) return undefined;
  const beta = String(headers['anthropic-beta'] ?? '').split(',').map(s => s.trim()).includes(BINDING_BETA);
  const thinking = body.thinking;
  const effort = checkEffort(body.output_config);
  let display: 'summarized' | 'omitted' = 'omitted';
  let dropBlocks = false;
  let betweenTools = false;
  if (thinking !== undefined) {
    if (!isObject(thinking)) invalid('thinking: Input should be a valid dictionary');
    if (thinking.type === 'enabled') invalid('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.');
    if (thinking.type === 'disabled') invalid(rules.disabledMessage);
    if (thinking.type === 'between_tools' && body.model === 'claude-sonnet-5-5') {
      onlyFields(thinking, ['type'], 'thinking.between_tools');
      if (effort === 'xhigh' || effort === 'max') invalid(`thinking.type "between_tools" is not supported at effort "${effort}"; use thinking.type "adaptive".`);
      betweenTools = true;
    } else if (thinking.type === 'adaptive') {
      if (thinking.block_binding !== undefined && !beta) {
        invalid(`thinking.block_binding: That setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header. thinking.adaptive.block_binding: Extra inputs are not permitted`);
      }
      onlyFields(thinking, ['type', 'display', 'block_binding'], 'thinking.adaptive');
      if (thinking.display !== undefined && thinking.display !== 'summarized' && thinking.display !== 'omitted') invalid("thinking.adaptive.display: Input should be 'summarized' or 'omitted'");
      display = thinking.display === 'summarized' ? 'summarized' : 'omitted';
      if (thinking.block_binding !== undefined) {
        if (!isObject(thinking.block_binding)) invalid('thinking.adaptive.block_binding: Input should be a valid dictionary');
        onlyFields(thinking.block_binding, ['prefix_mismatch_behavior'], 'thinking.adaptive.block_binding');
        const behavior = thinking.block_binding.prefix_mismatch_behavior;
        if (behavior !== 'error' && behavior !== 'drop_block') invalid("thinking.adaptive.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'");
        dropBlocks = behavior === 'drop_block';
      }
    } else {
      invalid("thinking.type: Input should be 'adaptive'");
    }
  }
  const choice = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
  const forced = choice === 'any' || choice === 'tool';
  if (forced && !rules.forcedToolChoice) invalid('tool_choice: type "tool" and "any" are not supported for this model.');
  checkSampling(body);
  const messages = body.messages as Json[];
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') invalid('This model does not support assistant message prefill. The conversation must end with a user message.');
  const checked = checkBlocks(body, rules, account, dropBlocks, beta);
  return {
    model: body.model as string, account, prefix: checked.prefix, lastRead: checked.lastRead, display,
    thinks: !(forced && rules.forcedToolChoice) && !betweenTools,
    ...(beta ? { transformations: checked.transformations } : {}),
  };
}

function checkEffort(config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isObject(config)) invalid('output_config: Input should be a valid dictionary');
  onlyFields(config, ['effort', 'format'], 'output_config');
  if (config.effort !== undefined && !EFFORTS.includes(config.effort as string)) invalid(`output_config.effort: Input should be ${EFFORTS.map(e => `'${e}'`).join(', ')}`);
  return config.effort as string | undefined;
}

/** Only the defaults: temperature 1 or top_p 0.99, never both, never top_k (also the 4.7-and-later models': validate.ts). */
export function checkSampling(body: Json): void {
  if (body.top_k !== undefined) invalid('top_k: this parameter is not supported for this model.');
  if (body.temperature !== undefined && body.top_p !== undefined) invalid('temperature and top_p cannot both be specified for this model.');
  if (body.temperature !== undefined && body.temperature !== 1) invalid('temperature: only the default value 1 is supported for this model.');
  if (body.top_p !== undefined && body.top_p !== 0.99) invalid('top_p: only the default value 0.99 is supported for this model.');
}

/**
 * A running digest of the prefix: system and tools, then each non-thinking block with its role, chained
 * (the digest after a block hashes the digest before it with the block's own hash). A conversation is
 * resent whole on every request, so a block's hash is remembered by its JSON text: each block is put in
 * canonical form once, and a request costs one short hash per block instead of hashing the whole history.
 */
export class PrefixDigest {
  private constructor(private state: string) {}

  static of(body: Json): PrefixDigest {
    const system = typeof body.system === 'string' ? [body.system] : Array.isArray(body.system) ? body.system.map(b => (b as Json).text) : [];
    return new PrefixDigest(shortHash(`S${sorted(system)}T${sorted(body.tools ?? [])}`));
  }

  add(role: unknown, block: unknown): void {
    this.state = shortHash(`${this.state}|${String(role)}:${blockHash(block)}`);
  }

  value(): string {
    return this.state;
  }

  copy(): PrefixDigest {
    return new PrefixDigest(this.state);
  }
}

const blockHashes = new Map<string, string>();

function blockHash(block: unknown): string {
  const key = JSON.stringify(block);
  let hash = blockHashes.get(key);
  if (hash === undefined) {
    hash = shortHash(sorted(block));
    if (blockHashes.size >= 100_000) blockHashes.clear();
    blockHashes.set(key, hash);
  }
  return hash;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** JSON with sorted keys and every cache_control left out: neither key order nor breakpoints count. */
function sorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).filter(k => k !== 'cache_control').sort().map(k => `${JSON.stringify(k)}:${sorted(value[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

interface Bound { m: string; a: string; p: string; b: string | null; n: string; t: string }

const verified = new Map<string, Bound>();

export function signBlock(thinking: string, binding: Omit<Bound, 't' | 'n'>, nonce: string): string {
  const payload = Buffer.from(JSON.stringify({ ...binding, n: nonce, t: textHash(thinking) })).toString('base64url');
  return `${SIGNATURE_PREFIX}${payload}.${createHmac('sha256', SECRET).update(payload).digest('base64url')}`;
}

/** The block's binding, undefined for a signature of the older scheme; throws on a tampered one. */
function readSignature(signature: string, thinking: string, path: string): Bound | undefined {
  if (!signature.startsWith(SIGNATURE_PREFIX)) return undefined;
  // Each signature is checked once: the same blocks come back on every later request of the conversation.
  const key = `${signature}\n${thinking}`;
  const known = verified.get(key);
  if (known) return known;
  const [payload, mac] = signature.slice(SIGNATURE_PREFIX.length).split('.');
  const bad = () => invalid(`${path}: Invalid \`signature\` in \`thinking\` block.`);
  if (!payload || mac !== createHmac('sha256', SECRET).update(payload).digest('base64url')) bad();
  const bound = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Bound;
  if (bound.t !== textHash(thinking)) bad();
  if (verified.size >= 100_000) verified.clear();
  verified.set(key, bound);
  return bound;
}

function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}


function checkBlocks(body: Json, rules: PreservedModel, account: string, dropBlocks: boolean, beta: boolean): { prefix: PrefixDigest; lastRead: string | null; transformations: Transformation[] } {
  const digest = PrefixDigest.of(body);
  const transformations: Transformation[] = [];
  let lastRead: string | null = null;
  let dropping = false;
  (body.messages as Json[]).forEach((message, i) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
    content.forEach((block, j) => {
      const path = `messages.${i}.content.${j}`;
      if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
        digest.add(message.role, block);
        return;
      }
      const drop = (reason: string) => void transformations.push({ type: 'thinking_dropped', path, reason });
      if (dropping) return drop('prefix_binding_mismatch');
      const bound = block.type === 'thinking' ? readSignature(String(block.signature), String(block.thinking), path) : undefined;
      if (!bound) {
        // Older models' blocks carry no binding; the hash scheme of validateMessages checked them.
        if (block.type === 'thinking' && block.signature === thinkingSignature(String(block.thinking))) lastRead = `old:${String(block.signature)}`;
        return;
      }
      if (bound.m !== body.model && !rules.reads.includes(bound.m)) return drop('model_binding_mismatch');
      if (PRESERVED[bound.m]?.accountBound && bound.a !== account) return drop('organization_binding_mismatch');
      const follows = bound.b === lastRead || lastRead === null;
      if (bound.p === digest.value() && follows) {
        lastRead = bound.n;
        return;
      }
      if (!dropBlocks) {
        invalid(`${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".` +
          (beta ? '' : ` That setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header.`));
      }
      dropping = true;
      drop('prefix_binding_mismatch');
    });
  });
  return { prefix: digest, lastRead, transformations };
}
