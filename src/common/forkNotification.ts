// The first line of a finished fork's report as its parent's next request carries it, and the way back
// from that text to the fork: the chat shows the user which reports arrived without showing the text
// meant for the model. One home for the format, so the two cannot drift apart. Pure.
import type { ForkSummary } from './forks';

export function forkNotificationHeadline(fork: Pick<ForkSummary, 'name' | 'id' | 'state' | 'modelTurns'>): string {
  const outcome = fork.state === 'completed' ? 'completed' : `ended (${fork.state})`;
  return `Fork "${fork.name}" (${fork.id}) ${outcome} after ${fork.modelTurns} model turn(s).`;
}

const HEADLINE = /^Fork ".*" \((f-[\w-]+)\) (?:completed|ended \([\w-]+\)) after \d+ model turn\(s\)\.$/gm;

/** The ids of the forks whose reports a notification entry's text carries, in order. */
export function forkIdsInNotification(text: string): string[] {
  return [...text.matchAll(HEADLINE)].map(match => match[1]);
}
