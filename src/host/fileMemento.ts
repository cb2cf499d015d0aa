// Extension state that must survive an immediate window reload. A browser workbench (code-server, VS Code
// for the Web) keeps workspaceState in IndexedDB and writes it about 100 ms after each update, so a value
// stored just before adding the first workspace root (which reloads the window) can be lost. This store
// writes a JSON file in the extension's storage folder synchronously (temp file + rename) instead.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { writePrivateFile } from '../ipc/privateFs';

export class FileMemento implements vscode.Memento {
  private values: Record<string, unknown>;

  constructor(private readonly file: string) {
    this.values = readValues(file);
  }

  keys(): readonly string[] {
    return Object.keys(this.values);
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    return key in this.values ? (this.values[key] as T) : defaultValue;
  }

  update(key: string, value: unknown): Thenable<void> {
    const next = { ...this.values };
    if (value === undefined) delete next[key];
    else next[key] = value;
    // In the store or the extension's storage: the user's alone (0700 folders, 0600 file).
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writePrivateFile(this.file, JSON.stringify(next));
    this.values = next;
    return Promise.resolve();
  }
}

/** A file-backed memento in `folder` when it is on this machine's disk, else the editor's own memento. */
export function durableMemento(folder: vscode.Uri | undefined, name: string, fallback: vscode.Memento): vscode.Memento {
  return folder?.scheme === 'file' ? new FileMemento(path.join(folder.fsPath, name)) : fallback;
}

function readValues(file: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    // Missing or unreadable: start empty; the next update rewrites the file whole.
    return {};
  }
}
