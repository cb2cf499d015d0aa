// What a sandboxed fork is told in its directive's boilerplate, so it plans for the sandbox instead of
// discovering it by failing: constant for the same settings, so sibling forks still share their prefix.
import type { SandboxSettings } from '../../common/sandbox';
import { sandboxSupport } from './platform';

export function sandboxNotice(settings: SandboxSettings | undefined): string[] | undefined {
  if (!settings || settings.mode === 'off') return undefined;
  const support = sandboxSupport();
  if (support.kind === 'unsupported') {
    return settings.mode === 'required' ? [`Sandbox notice: fork.sandbox is "required" but ${support.reason}, so your shell commands are refused.`] : undefined;
  }
  const allow = support.kind === 'bwrap' && support.socat ? settings.allowNetwork ?? [] : [];
  return [
    'Sandbox notice: your commands run in an OS sandbox.',
    '- Only your root folder (and /tmp, empty for each command) is writable; the main working tree, your home and the system are',
    '  read-only, and credentials (~/.ssh, ~/.aws, ~/.npmrc, …) are hidden.',
    allow.length
      ? `- Network: only ${allow.join(', ')}, through the proxy in HTTPS_PROXY; tools that ignore it cannot connect.`
      : '- There is no network: downloads and installs fail; work with what is present.',
    '- Every process a command starts ends with it. A refusal by the sandbox is final: report what you needed instead of working around it.',
  ];
}
