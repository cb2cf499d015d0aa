// A fork's report renders as its sections, whatever the model did to the labels (the directive asks for
// Scope / Result / Key files / Files changed / Verification lines; models bold them, indent them, put
// them after a list or under headings).
import * as assert from 'node:assert/strict';
import { splitReport } from '../../src/common/reportSections';
import { renderReport, renderUntrustedMarkdown } from '../../src/host/panel/markdown';
import { forkReport } from '../fakes/demoScript';

const labels = (report: string) => splitReport(report).sections.map(s => s.label);

describe('panel: report sections', () => {
  it('starts a section at each label line, also right after a list (no folding into the last bullet)', () => {
    const report = 'Scope: tidy the parser.\nResult:\n- split tokens\n- added tests\nKey files: src/parse.ts\nFiles changed: src/parse.ts, test/parse.test.ts\nVerification: npm test passed';
    const split = splitReport(report);
    assert.deepEqual(split.sections.map(s => [s.label, s.text]), [
      ['Scope', 'tidy the parser.'],
      ['Result', '- split tokens\n- added tests'],
      ['Key files', 'src/parse.ts'],
      ['Files changed', 'src/parse.ts, test/parse.test.ts'],
      ['Verification', 'npm test passed'],
    ]);
    // What plain markdown did with it: the label lines became part of the last bullet.
    assert.match(renderUntrustedMarkdown(report), /<li>added tests<br>\s*Key files:/);
    const html = renderReport(report);
    assert.equal((html.match(/<dt>/g) ?? []).length, 5);
    assert.match(html, /<dt>Key files<\/dt>\n<dd><p>src\/parse.ts<\/p>\n<\/dd>/);
    assert.match(html, /<dt>Result<\/dt>\n<dd><ul>\n<li>split tokens<\/li>/);
  });

  it('takes bold labels, headings and bullets, and dedents an indented report instead of making it code', () => {
    assert.deepEqual(labels('**Scope:** x\n**Result**: y\n## Key files\na.ts\n- **Files changed:** none\n### Verification\nran it'), ['Scope', 'Result', 'Key files', 'Files changed', 'Verification']);
    const indented = '    Scope: look around\n    Result: found two bugs\n      - one\n      - two\n    Verification: read the code';
    assert.deepEqual(labels(indented), ['Scope', 'Result', 'Verification']);
    assert.doesNotMatch(renderReport(indented), /<pre>|<code>/);
    assert.match(renderReport(indented), /<dt>Result<\/dt>\n<dd><p>found two bugs<\/p>\n<ul>/);
  });

  it('leaves prose, code blocks and unlabelled reports alone', () => {
    assert.deepEqual(labels('Result was fine.\nThe results: good.'), []);
    assert.deepEqual(labels('Scope: a\n```\nResult: inside a code block\n```\nVerification: ok'), ['Scope', 'Verification']);
    assert.equal(renderReport('Just a note.'), renderUntrustedMarkdown('Just a note.'));
    assert.deepEqual(splitReport('Intro line.\nScope: s').intro, 'Intro line.');
  });

  it('keeps what the report says untrusted: HTML in a section is text', () => {
    const html = renderReport('Scope: <img src=x onerror=alert(1)>\nResult: ok');
    assert.ok(!/<img/i.test(html), html);
  });

  it('renders the demo model\'s report with the same sections', () => {
    const report = forkReport('fix the parser', [
      { step: { name: 'edit_file', input: { path: 'src/parse.ts' } }, text: 'ok', isError: false },
      { step: { name: 'bash', input: { command: 'npm test' } }, text: 'exit 1', isError: true },
    ], 'Fixed it.');
    assert.deepEqual(labels(report), ['Scope', 'Result', 'Key files', 'Files changed', 'Verification', 'Issues']);
    assert.equal((renderReport(report).match(/<dt>/g) ?? []).length, 6);
  });
});
