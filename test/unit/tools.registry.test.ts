import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALL_TOOLS, findTool, runTool, toolDefinitions } from '../../src/runtime/tools/registry';
import { ToolError } from '../../src/runtime/tools/types';
import type { Tool, ToolContext } from '../../src/runtime/tools/types';

describe('tools: registry', () => {
  it('lists the tools in a fixed order with the right categories', () => {
    assert.deepEqual(ALL_TOOLS.map(t => [t.definition.name, t.category]), [
      ['read_file', 'read'], ['list_files', 'read'], ['grep', 'read'], ['write_file', 'edit'], ['edit_file', 'edit'], ['bash', 'exec'], ['Agent', 'read'],
    ]);
    assert.equal(findTool('grep'), ALL_TOOLS[2]);
    assert.equal(findTool('Agent'), ALL_TOOLS[6]);
    assert.equal(findTool('agent'), undefined);
  });

  it('has well-formed schemas: closed objects, required fields declared, described', () => {
    for (const { definition } of ALL_TOOLS) {
      const schema = definition.input_schema;
      assert.equal(schema.type, 'object');
      assert.equal(schema.additionalProperties, false, definition.name);
      const props = schema.properties as Record<string, { type: string; description: string }>;
      for (const req of schema.required ?? []) assert.ok(req in props, `${definition.name}.${req}`);
      for (const [key, prop] of Object.entries(props)) {
        assert.ok(['string', 'integer', 'boolean'].includes(prop.type), `${definition.name}.${key}`);
        assert.ok(prop.description.length > 10, `${definition.name}.${key} needs a description`);
      }
      assert.ok(definition.description.length > 100, `${definition.name} needs a real description`);
      assert.equal(definition.cache_control, undefined);
    }
  });

  it('produces byte-identical definitions in a fresh process (they are part of the cache prefix)', () => {
    const here = JSON.stringify(toolDefinitions());
    const registry = path.join(__dirname, '../../src/runtime/tools/registry.js');
    const script = `process.stdout.write(JSON.stringify(require(${JSON.stringify(registry)}).toolDefinitions()))`;
    assert.equal(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }), here);
  });

  it('freezes the shared definitions and hands out mutable copies', () => {
    assert.ok(Object.isFrozen(ALL_TOOLS));
    assert.ok(Object.isFrozen(ALL_TOOLS[0].definition.input_schema));
    const copies = toolDefinitions();
    copies[copies.length - 1].cache_control = { type: 'ephemeral' };
    assert.equal(ALL_TOOLS[ALL_TOOLS.length - 1].definition.cache_control, undefined);
  });

  it('describe() never throws, whatever the input', () => {
    const odd: unknown[] = [undefined, null, 0, 'x', [], {}, { path: 5 }, { path: '' }, Object.create(null), { command: {} }];
    for (const tool of ALL_TOOLS) {
      for (const input of odd) {
        const line = tool.describe(input);
        assert.equal(typeof line, 'string');
        assert.ok(line.length > 0 && !line.includes('\n'), `${tool.definition.name}: ${JSON.stringify(line)}`);
      }
    }
    assert.equal(ALL_TOOLS[0].describe({ path: 'README.md' }), 'Read README.md');
    assert.equal(ALL_TOOLS[4].describe({ path: 'src/a.ts' }), 'Edit src/a.ts');
    assert.equal(ALL_TOOLS[2].describe({ pattern: 'foo', path: 'src' }), 'Search for "foo" in src');
  });

  it('runTool turns thrown errors into error results', async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-reg-')));
    try {
      const ctx: ToolContext = { root, signal: new AbortController().signal };
      const throwing = (err: unknown): Tool => ({ ...ALL_TOOLS[0], run: () => Promise.reject(err) });
      assert.deepEqual(await runTool(throwing(new ToolError('bad input')), {}, ctx), { content: 'bad input', isError: true });
      assert.deepEqual(await runTool(throwing(new TypeError('boom')), {}, ctx), { content: 'boom', isError: true });
      assert.deepEqual(await runTool(throwing('a string'), {}, ctx), { content: 'a string', isError: true });
      for (const tool of ALL_TOOLS) {
        const out = await runTool(tool, { nonsense: true }, ctx);
        assert.equal(out.isError, true);
        assert.match(out.content, new RegExp(`^${tool.definition.name}: unknown field "nonsense"`));
      }
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
