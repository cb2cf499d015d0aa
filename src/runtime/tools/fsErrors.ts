// Turns Node's fs errors into messages a model can act on ("File not found: src/a.ts").
import { ToolError } from './types';

export function errorCode(err: unknown): string | undefined {
  return err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export function fsToolError(err: unknown, rel: string): ToolError {
  switch (errorCode(err)) {
    case 'ENOENT': return new ToolError(`File not found: ${rel}`);
    case 'ENOTDIR': return new ToolError(`Not a directory: a parent of ${rel} is a file.`);
    case 'EISDIR': return new ToolError(`${rel} is a directory, not a file; use list_files to see its contents.`);
    case 'EACCES':
    case 'EPERM': return new ToolError(`Permission denied: ${rel}`);
    default: return new ToolError(`Cannot access ${rel}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
