// The report of a finished agent-started fork, as the reminder the parent's next request carries
// (docs/design.md §4.6). A pure system reminder, so it never counts as a real user turn.
import type { ForkSummary } from '../../common/forks';
import { forkNotificationHeadline } from '../../common/forkNotification';

export function renderForkNotification(fork: ForkSummary): string {
  // The report is model output: it must not be able to close the reminder early.
  const body = (fork.report ?? fork.error ?? '(no report)').replaceAll('</system-reminder>', '</system_reminder>');
  return [
    '<system-reminder>',
    '<fork-notification>',
    forkNotificationHeadline(fork),
    '',
    body,
    '</fork-notification>',
    '</system-reminder>',
  ].join('\n');
}
