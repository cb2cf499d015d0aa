// The chat's `/fork [--turns all|N] [--attempts N] <directive>`: forks the current chat's session in the
// background; with --attempts, a tournament of that many attempts.
import type * as vscode from 'vscode';
import { forkTurnsToString } from '../../common/forkTurns';
import { forkStart, tournamentStart } from '../../common/protocol/forks';
import { parseForkCommand } from '../forks/forkDirective';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';
import { requestErrorView } from './chatErrors';
import { finishResponse, untrusted } from './renderEvents';
import { ChatForks } from './chatForks';
import { shortText } from '../../common/forkDisplay';
import type { ChatSessionMetadata } from './sessionMapping';
import type { ForkEndsShown } from '../forks/forkEndsShown';

export async function forkCommand(
  deps: { runtime: RuntimeApi; settings: HostSettings; endsShown: ForkEndsShown },
  prompt: string,
  sessionId: string | undefined,
  stream: vscode.ChatResponseStream,
  metadata: ChatSessionMetadata | undefined,
): Promise<vscode.ChatResult> {
  const parsed = parseForkCommand(prompt);
  if (!parsed.ok) return finishResponse(stream, metadata, { message: parsed.error });
  if (!sessionId) {
    return finishResponse(stream, metadata, { message: 'Nothing to fork yet: ask @fork something first, then /fork it.' });
  }
  const turns = forkTurnsToString(parsed.turns ?? deps.settings.defaultTurns());
  try {
    // A worktree fork's git worktree is made before the fork starts (up to a second or two).
    if (parsed.attempts) {
      stream.progress(`Starting ${parsed.attempts} attempts…`);
      const { group } = await deps.runtime.request(tournamentStart, { sessionId, directive: parsed.directive, forkTurns: turns, origin: 'user', attempts: parsed.attempts });
      stream.markdown(untrusted(
        `Started a tournament of **${parsed.attempts} attempts** in their own worktrees${group.verify ? `; each runs \`${group.verify}\` when it ends` : ' (no verify command found)'}. ` +
        'Compare them in the Forks panel and apply the best.',
      ));
      return { metadata };
    }
    stream.progress('Starting the fork…');
    const fork = await deps.runtime.request(forkStart, { sessionId, directive: parsed.directive, forkTurns: turns, origin: 'user' });
    stream.markdown(untrusted(
      `Started fork **${shortText(fork.name)}** in the background (inherits ${turns === 'all' ? 'the whole conversation' : turns === '1' ? 'the last turn' : `the last ${turns} turns`}). ` +
      'Go on chatting meanwhile: when it needs your approval it asks in the Forks view (or a notification while the view is hidden).',
    ));
    if (fork.summaryExcluded) {
      stream.markdown(untrusted('\n\n_This conversation was compacted: a window of recent turns leaves its summary out; `/fork --turns all …` inherits it._'));
    }
    // The answer ends here, with the fork running: an answer in progress would hold back the next message.
    const forks = new ChatForks(deps.runtime, stream, () => sessionId, deps.endsShown);
    try {
      forks.adopt(fork);
      await forks.show();
    } finally {
      forks.dispose();
    }
    return { metadata };
  } catch (error) {
    return finishResponse(stream, metadata, requestErrorView(error));
  }
}
