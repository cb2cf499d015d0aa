// MCP server configuration in VS Code's `.vscode/mcp.json` format (JSON with comments): `servers` with
// `type` stdio | http | sse, `command`, `args`, `env`, `envFile`, `cwd`, `url`, `headers`, and `inputs`
// referenced as `${input:id}`. Shared by the editor and the CLI; they differ only in where inputs and
// trust come from. An entry's fingerprint is its text as written: trust is reset when it changes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseEnv } from 'node:util';
import { parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import type { McpServerConfig, McpServerType } from '../common/protocol/mcp';

export interface McpInput { id: string; type: string; description?: string; password?: boolean; default?: string }

/** One server as written, before variables are resolved. */
export interface McpEntry {
  name: string;
  type: McpServerType;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  envFile?: string;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
}

export interface McpFile { servers: McpEntry[]; inputs: McpInput[]; problems: string[] }

export function parseMcpConfig(text: string, where: string): McpFile {
  const errors: ParseError[] = [];
  const json = parseJsonc(text, errors, { allowTrailingComma: true }) as unknown;
  const file: McpFile = { servers: [], inputs: [], problems: [] };
  if (errors.length > 0) {
    file.problems.push(`${where}: not valid JSON (${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}); its MCP servers are ignored.`);
    return file;
  }
  return fromJson(json, where);
}

/** The same shape as an object (the `fork.mcp.servers` setting holds `{ servers, inputs }` or just the servers). */
export function fromJson(json: unknown, where: string): McpFile {
  const file: McpFile = { servers: [], inputs: [], problems: [] };
  if (!isObject(json)) {
    if (json !== undefined && json !== null) file.problems.push(`${where}: expected an object with "servers".`);
    return file;
  }
  const servers = isObject(json.servers) ? json.servers : json.inputs === undefined && !('servers' in json) ? json : {};
  for (const [name, raw] of Object.entries(servers)) {
    const entry = toEntry(name, raw);
    if (typeof entry === 'string') file.problems.push(`${where}: server "${name}": ${entry}`);
    else file.servers.push(entry);
  }
  if (Array.isArray(json.inputs)) {
    for (const input of json.inputs) if (isObject(input) && typeof input.id === 'string') file.inputs.push(input as unknown as McpInput);
  }
  return file;
}

function toEntry(name: string, raw: unknown): McpEntry | string {
  if (!isObject(raw)) return 'expected an object.';
  const type = (raw.type ?? (typeof raw.url === 'string' ? 'http' : 'stdio')) as string;
  if (type !== 'stdio' && type !== 'http' && type !== 'sse') return `type must be stdio, http or sse (got ${JSON.stringify(type)}).`;
  const entry: McpEntry = { name, type };
  if (type === 'stdio') {
    if (typeof raw.command !== 'string' || raw.command.trim() === '') return 'a stdio server needs a "command".';
    entry.command = raw.command;
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args) || raw.args.some(a => typeof a !== 'string')) return '"args" must be a list of strings.';
      entry.args = raw.args as string[];
    }
    if (raw.env !== undefined) entry.env = stringMap(raw.env);
    if (typeof raw.envFile === 'string') entry.envFile = raw.envFile;
    if (typeof raw.cwd === 'string') entry.cwd = raw.cwd;
  } else {
    if (typeof raw.url !== 'string' || raw.url.trim() === '') return `an ${type} server needs a "url".`;
    entry.url = raw.url;
    if (raw.headers !== undefined) entry.headers = stringMap(raw.headers);
  }
  return entry;
}

/** What the user is asked to trust: the exact command line or URL. */
export function describeEntry(entry: McpEntry): string {
  if (entry.type !== 'stdio') return `${entry.type.toUpperCase()} ${entry.url}`;
  return [entry.command ?? '', ...(entry.args ?? [])].map(quoteArg).join(' ');
}

/** Changes whenever anything in the entry changes (trust is remembered against it). */
export function fingerprint(entry: McpEntry): string {
  return canonical(entry);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map(k => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Environment variables `${env:…}` never expands: the model provider's credentials. A repository's server
 * entry naming one would otherwise receive the key the moment the chat starts.
 */
const PROVIDER_CREDENTIALS = /^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_BEARER_TOKEN_BEDROCK|GOOGLE_APPLICATION_CREDENTIALS|CLAUDE_CODE_OAUTH_TOKEN)$/i;

/** Whether an entry is its command line (or URL) and nothing else, so the command line alone names all of it. */
export function isPlainEntry(entry: McpEntry): boolean {
  return entry.env === undefined && entry.envFile === undefined && entry.cwd === undefined && entry.headers === undefined;
}

export interface ResolveContext {
  workspaceFolder?: string;
  env: NodeJS.ProcessEnv;
  /** The value of `${input:id}`; undefined leaves the server out with a problem. */
  input(input: McpInput | undefined, id: string): Promise<string | undefined>;
  inputs: McpInput[];
}

/** Variables resolved (`${workspaceFolder}`, `${env:X}`, `${input:id}`), envFile read: what the runtime runs. */
export async function resolveEntry(entry: McpEntry, ctx: ResolveContext, trusted: boolean): Promise<McpServerConfig> {
  const resolve = async (text: string): Promise<string> => {
    let out = '';
    let last = 0;
    for (const match of text.matchAll(/\$\{(workspaceFolder|env:([^}]+)|input:([^}]+))\}/g)) {
      out += text.slice(last, match.index);
      last = (match.index ?? 0) + match[0].length;
      if (match[1] === 'workspaceFolder') out += ctx.workspaceFolder ?? '';
      else if (match[2] !== undefined) {
        if (PROVIDER_CREDENTIALS.test(match[2].trim())) throw new Error(`\${env:${match[2]}} is a model provider credential; it is never handed to an MCP server`);
        out += ctx.env[match[2]] ?? '';
      }
      else {
        const id = match[3];
        const value = await ctx.input(ctx.inputs.find(i => i.id === id), id);
        if (value === undefined) throw new Error(`input "${id}" has no value`);
        out += value;
      }
    }
    return out + text.slice(last);
  };
  const resolveMap = async (map: Record<string, string> | undefined) => {
    if (!map) return undefined;
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(map)) out[key] = await resolve(value);
    return out;
  };
  const config: McpServerConfig = { name: entry.name, type: entry.type };
  if (trusted) config.trusted = true;
  if (entry.type === 'stdio') {
    config.command = await resolve(entry.command ?? '');
    config.args = await Promise.all((entry.args ?? []).map(resolve));
    let env = await resolveMap(entry.env);
    if (entry.envFile) {
      const file = await resolve(entry.envFile);
      const fromFile = parseEnv(fs.readFileSync(path.resolve(ctx.workspaceFolder ?? '.', file), 'utf8')) as Record<string, string>;
      env = { ...fromFile, ...env };
    }
    if (env) config.env = env;
    config.cwd = entry.cwd ? path.resolve(ctx.workspaceFolder ?? '.', await resolve(entry.cwd)) : ctx.workspaceFolder;
  } else {
    config.url = await resolve(entry.url ?? '');
    const headers = await resolveMap(entry.headers);
    if (headers) config.headers = headers;
  }
  return config;
}

/** `.vscode/mcp.json` under a folder, or an empty file when there is none. */
export function readWorkspaceMcp(folder: string): McpFile {
  const file = path.join(folder, '.vscode', 'mcp.json');
  let text: string;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { servers: [], inputs: [], problems: [] };
  }
  try {
    // Read through the handle that was checked: a link swapped after the check cannot redirect the read.
    const inside = isInside(fs.realpathSync(folder), fs.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'utf8' }));
    if (!inside) return { servers: [], inputs: [], problems: [`${file}: reached through a symbolic link that leaves the repository; its MCP servers are ignored.`] };
    text = fs.readFileSync(fd, 'utf8');
  } catch {
    return { servers: [], inputs: [], problems: [] };
  } finally {
    fs.closeSync(fd);
  }
  return parseMcpConfig(text, file);
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function stringMap(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => [k, String(v)]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
