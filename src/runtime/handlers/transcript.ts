// session/transcript: the header and active history of one session, with what each response cost.
// session/cache: the cache explorer of one session.
import { priceFor, priceRequest, priceRequests } from '../../common/pricing';
import type { CostFigures } from '../../common/pricing';
import { sessionCache, sessionTranscript } from '../../common/protocol/runtime';
import type { TranscriptResult } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import type { Session } from '../session/session';
import { describeDamage, unrepaired } from '../session/damage';

export function registerTranscript(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionTranscript, async (params): Promise<TranscriptResult> => {
    const session = await sessionOf(ctx, params?.sessionId);
    const entries = [...session.history()];
    const open = unrepaired(session.damage);
    const damage = open.length > 0 ? open.map(describeDamage) : undefined;
    return { header: session.header, entries, running: ctx.turns.isRunning(session.id), costs: costsOf(ctx, session), spent: session.spent, damage };
  });
  client.handle(sessionCache, async params => ({ steps: ctx.forks.cacheStepsOf(await sessionOf(ctx, params?.sessionId)) }));
}

async function sessionOf(ctx: RuntimeContext, id: string | undefined): Promise<Session> {
  return ctx.store.get(String(id));
}

function costsOf(ctx: RuntimeContext, session: Session): TranscriptResult['costs'] {
  const model = session.header.settings.model;
  const prices = ctx.forks.prices;
  const total = priceRequests(model, session.bills, prices);
  if (!total || !priceFor(model, prices)) return undefined;
  const entries: Record<string, CostFigures> = {};
  // A fork's inherited entries were the parent's spending, not its own.
  for (const entry of session.ownEntries()) {
    const cost = entry.usage && priceRequest(model, entry.usage, { overrides: prices, at: entry.time });
    if (cost) entries[entry.id] = { usd: cost.usd, uncachedUsd: cost.uncachedUsd };
  }
  return { entries, total: { usd: total.usd, uncachedUsd: total.uncachedUsd }, model, priceFrom: total.from };
}
