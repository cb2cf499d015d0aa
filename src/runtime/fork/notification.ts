// The report of a finished agent-started fork, as the reminder the parent's next request carries
// (DESIGN §4.7). A pure system reminder, so it never counts as a real user turn.
import type { ForkSummary } from '../../common/forks';

export function renderForkNotification(fork: ForkSummary): string {
  const outcome = fork.state === 'completed' ? 'completed' : `ended (${fork.state})`;
  // The report is model output: it must not be able to close the reminder early.
  const body = (fork.report ?? fork.error ?? '(no report)').replaceAll('</system-reminder>', '</system_reminder>');
  return [
    '<system-reminder>',
    '<fork-notification>',
    `Fork "${fork.name}" (${fork.id}) ${outcome} after ${fork.modelTurns} model turn(s).`,
    '',
    body,
    '</fork-notification>',
    '</system-reminder>',
  ].join('\n');
}
