// A fork's item in a chat answer as markdown text (pure, tested without an editor): its line, then links
// that run a command on the fork. The line comes from the fork's name, which a model may have written, so
// every markdown character in it is escaped: it can never become a link of its own.

export interface ForkLink { label: string; command: string; forkId: string; tooltip: string }

/** "**Fork** “name” running · 1 model turn" and a line of links "Open · Review · Apply · Stop". */
export function forkItemMarkdown(line: string | undefined, links: readonly ForkLink[]): string {
  const head = line === undefined ? '' : `**Fork** ${escapeMarkdown(line)}\n\n`;
  const linkText = links.map(link => `[${escapeMarkdown(link.label)}](command:${link.command}?${encodeURIComponent(JSON.stringify([{ forkId: link.forkId }]))} "${link.tooltip.replace(/["\\]/g, '')}")`);
  return `\n\n${head}${linkText.join(' · ')}\n\n`;
}

/** Backslash before each character markdown gives a meaning; line breaks become spaces. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[\\`*_{}[\]()#+\-.!|<>~&:]/g, char => `\\${char}`);
}
