// The first line of a finished fork's report as its parent's next request carries it, and the way back
// from that text to the fork: the chat shows the user which reports arrived without showing the text
// meant for the model. One home for the format, so the two cannot drift apart. Pure.
import type { ForkSummary } from './forks';

export function forkNotificationHeadline(fork: Pick<ForkSummary, 'name' | 'id' | 'state' | 'modelTurns'>): string {
  const outcome = fork.state === 'completed' ? 'completed' : `ended (${fork.state})`;
  return `Fork "${fork.name}" (${fork.id}) ${outcome} after ${fork.modelTurns} model turn(s).`;
}

const HEADLINE = /^Fork "(.*)" \((f-[\w-]+)\) (completed|ended \(([\w-]+)\)) after (\d+) model turn\(s\)\.$/gm;

/** What a report's headline says of its fork: enough to tell the user, with no request to the runtime. */
export interface ReportHeadline { forkId: string; name: string; state: string; modelTurns: number }

/** The headlines of the reports a notification entry's text carries, in order. */
export function reportHeadlines(text: string): ReportHeadline[] {
  return [...text.matchAll(HEADLINE)].map(match => ({
    forkId: match[2], name: match[1], state: match[3] === 'completed' ? 'completed' : match[4], modelTurns: Number(match[5]),
  }));
}

/** The ids of the forks whose reports a notification entry's text carries, in order. */
export function forkIdsInNotification(text: string): string[] {
  return reportHeadlines(text).map(headline => headline.forkId);
}
