// The runtime's view of a language model: one streaming request at a time, typed errors.
import type { ErrorInfo } from '../../common/agentEvents';
import type { InputTransformation, Message, Usage } from '../../common/transcript';
import type { EncodedBody, MessagesRequestBody } from './wire';

export interface StreamHandlers {
  onText(delta: string): void;
  onThinking(delta: string): void;
  /** The response has started (message_start). */
  onStart?(): void;
}

export interface ModelResponse {
  message: Message;
  usage: Usage;
  stopReason: string;
  /** When the provider answered, by its clock (the response's Date header), in ms; absent: unknown. */
  serverTime?: number;
  /** What the API changed in the request before the model read it (only reported with the thinking-binding beta header). */
  inputTransformations?: InputTransformation[];
}

/**
 * What the caller already knows of a body, so the client need not walk it again: its bytes (sent as they
 * are to the Anthropic API; the cloud SDKs encode their own) and the cache TTL its breakpoints ask for.
 */
export interface BodyFacts { encoded?: EncodedBody; ttl?: '5m' | '1h' }

export interface ModelClient {
  stream(body: MessagesRequestBody, signal: AbortSignal, handlers: StreamHandlers, facts?: BodyFacts): Promise<ModelResponse>;
}

const MODEL_ERROR = Symbol.for('fork-agents.ModelError');

export class ModelError extends Error {
  /**
   * The model client is bundled apart (dist/lazy/model.js, loaded on the first request) with its own copy
   * of this class: `instanceof` asks for the mark every copy sets, not for one copy's prototype.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MODEL_ERROR] === true;
  }

  private readonly [MODEL_ERROR] = true;

  /** What the provider billed for this attempt anyway: set once its stream started (message_start). */
  billed?: Usage;
  serverTime?: number;

  constructor(
    readonly info: ErrorInfo,
    readonly retryAfterMs?: number,
    /** The server's say (x-should-retry, or the SDK's status rule); absent: decided by kind. */
    private readonly retryOverride?: boolean,
  ) {
    super(info.message);
  }

  get retryable(): boolean {
    if (this.retryOverride !== undefined) return this.retryOverride;
    return ['rate_limit', 'overloaded', 'server', 'network'].includes(this.info.kind);
  }
}
