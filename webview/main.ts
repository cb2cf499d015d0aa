// The Forks panel page: says `panel/ready`, rebuilds itself from the host's snapshot (after every
// load — the view may have been hidden and its page discarded), then applies the host's updates. It owns
// no data; only what the user is typing and which rows are open are remembered across reloads.
import { isTerminal } from '../src/common/forks';
import { spendingText, storeSizeText } from '../src/common/forkDisplay';
import {
  approvalsState, forkOutput, forkReveal, forksState, isWireMessage, mcpServersState, modelsState, openLink, panelDiffSince, panelForkFromMessage, panelReady, panelSnapshot,
  sessionState, storeState,
} from '../src/common/protocol/webview';
import type { PanelSnapshot, StoreSizeView } from '../src/common/protocol/webview';
import type { ParamsOf } from '../src/common/protocol/descriptor';
import { h, icon, setText } from './dom';
import { ForkList } from './forkList';
import { HostChannel } from './host';
import { NewForkForm } from './newForkForm';
import type { FormState } from './newForkForm';
import { TranscriptView } from './transcriptView';
import { DamageNotice } from './damageNotice';
import { CacheBars } from './cacheBars';
import { McpServerList } from './mcpServers';
import { CompareView } from './compareView';
import type { CacheStep } from '../src/common/cacheExplorer';

interface UiState extends FormState { expanded: string[]; closed: string[]; seen: boolean }

const channel = new HostChannel();
const ui = channel.loadState<UiState>({ expanded: [], closed: [], seen: false, directive: '', turnsMode: 'all', turnsN: '' });
const save = () => channel.saveState(ui);
const status = h('div', { class: 'status-line', role: 'status', hidden: true });
const report = (error: unknown) => {
  setText(status, error instanceof Error ? error.message : String(error));
  status.hidden = false;
};
let worktreeActions = false;

const transcript = new TranscriptView(message => {
  const forkTurns = form.turns();
  if (forkTurns === undefined) return form.focusTurns();
  channel.request(panelForkFromMessage, { messageId: message.id, forkTurns }).catch(report);
}, message => {
  channel.request(panelDiffSince, { messageId: message.id }).catch(report);
});
const compare = new CompareView(channel, error => report(error));
const list = new ForkList({
  channel,
  report,
  compare: groupId => void compare.show(groupId),
  worktreeActions: () => worktreeActions,
  isExpanded: id => ui.expanded.includes(id),
  setExpanded: (id, expanded) => {
    ui.expanded = expanded ? [...new Set([...ui.expanded, id])] : ui.expanded.filter(x => x !== id);
    save();
  },
  messageSnippet: entryId => transcript.snippet(entryId),
});
const chatCost = h('p', { class: 'chat-cost', role: 'status' });
const chatCache = new CacheBars();
const chatDamage = new DamageNotice('chat');
const mcpServers = new McpServerList();
const showChatSpending = (session: { costText?: string; cacheSteps?: CacheStep[]; damage?: string[] } | undefined) => {
  chatDamage.set(session?.damage);
  setText(chatCost, session?.costText ?? '');
  chatCost.hidden = !session?.costText;
  chatCache.set(session?.cacheSteps);
};
const form = new NewForkForm(channel, ui, save, forkId => list.reveal(forkId));
const forksCount = h('span', { class: 'count' });
const storeLine = h('div', { class: 'store-line', hidden: true });
const showStore = (store: StoreSizeView | undefined) => {
  storeLine.hidden = !store;
  if (store) setText(storeLine, `Store on disk: ${storeSizeText(store.bytes)} (${counted(store.sessions, 'session')}, ${counted(store.segments, 'shared history segment')})`);
};
// The panel's header: what the forks spent in total.
const totals = h('div', { class: 'spend-totals', role: 'status', 'aria-label': 'Spending' });
list.onChange = () => {
  const forks = list.forks();
  const live = forks.filter(f => !isTerminal(f.state) && f.state !== 'paused-budget').length;
  const paused = forks.filter(f => f.state === 'paused-budget').length;
  setText(forksCount, [live > 0 ? `${live} running` : '', paused > 0 ? `${paused} paused` : ''].filter(Boolean).join(', '));
  const spent = spendingText(forks);
  setText(totals, spent);
  totals.hidden = spent === '';
};

function section(id: string, title: string, ...content: HTMLElement[]): HTMLElement {
  const details = h('details', { class: 'section', 'data-section': id, open: !ui.closed.includes(id) },
    h('summary', {}, icon('chevron-right', 'twistie'), h('h2', {}, title), id === 'forks' ? forksCount : undefined), ...content);
  details.addEventListener('toggle', () => {
    ui.closed = details.open ? ui.closed.filter(x => x !== id) : [...new Set([...ui.closed, id])];
    save();
  });
  return details;
}

const app = document.getElementById('app')!;
app.replaceChildren(
  totals,
  status,
  section('new', 'New fork', form.el),
  section('forks', 'Forks', compare.el, list.el, list.empty, storeLine),
  section('conversation', 'Conversation', chatDamage.el, chatCost, mcpServers.el, chatCache.el, transcript.el, transcript.empty),
);

function load(snapshot: PanelSnapshot): void {
  worktreeActions = snapshot.worktreeActions;
  transcript.set(snapshot.session);
  showChatSpending(snapshot.session);
  form.setModels(snapshot.models);
  form.setSession(snapshot.session);
  mcpServers.set(snapshot.mcpServers);
  form.setDefaults(snapshot.defaults, !ui.seen);
  ui.seen = true;
  save();
  list.load(snapshot);
  showStore(snapshot.store);
  app.removeAttribute('aria-busy');
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data;
  if (!isWireMessage(message) || channel.settle(message) || message.kind !== 'notification') return;
  const params = message.params as never;
  switch (message.method) {
    case panelSnapshot.method: return load(params);
    case forksState.method: {
      list.upsert(params);
      const { fork } = params as ParamsOf<typeof forksState>;
      if (isTerminal(fork.state)) compare.refreshIf(fork.tournament?.groupId);
      return;
    }
    case forkOutput.method: {
      const { forkId, ops } = params as ParamsOf<typeof forkOutput>;
      return list.applyOutput(forkId, ops);
    }
    case approvalsState.method: return list.setApprovals((params as ParamsOf<typeof approvalsState>).approvals);
    case sessionState.method: {
      const { session } = params as ParamsOf<typeof sessionState>;
      transcript.set(session);
      showChatSpending(session);
      return form.setSession(session);
    }
    case storeState.method: return showStore(params as StoreSizeView);
    case mcpServersState.method: return mcpServers.set((params as ParamsOf<typeof mcpServersState>).servers);
    case modelsState.method: return form.setModels((params as ParamsOf<typeof modelsState>).models);
    case forkReveal.method: return list.reveal((params as ParamsOf<typeof forkReveal>).forkId);
  }
});

// Links in model output carry no href (nothing follows them by itself): the host asks the user first.
const followLink = (event: Event) => {
  const link = (event.target as Element | null)?.closest?.('[data-href]');
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  channel.request(openLink, { href: link.getAttribute('data-href') ?? '' }).catch(report);
};
document.addEventListener('click', followLink, true);
document.addEventListener('keydown', event => {
  if (event.key === 'Enter') followLink(event);
}, true);
status.addEventListener('click', () => (status.hidden = true));

setInterval(() => list.tick(Date.now()), 1000);
channel.notify(panelReady, {});

function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
