// The forks whose end a chat answer has shown (chat/chatForks.ts): the fork-finished notification stays
// quiet for them, since the same outcome with the same actions is already on screen beside it.
export class ForkEndsShown {
  private readonly ids = new Set<string>();

  add(forkId: string): void {
    this.ids.add(forkId);
  }

  has(forkId: string): boolean {
    return this.ids.has(forkId);
  }
}
