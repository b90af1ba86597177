import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentationExamples, linkedDocPages, shellExamples } from './support/doc-examples.js';

describe('shell examples of the documentation', () => {
  it('takes ```bash and ```sh blocks, not other languages or plain fences', () => {
    const markdown = ['# T', '```bash', 'curl -s $API/health', '```', '```json', '{"a":1}', '```', '```', 'Voice agent operations API is up', '```', '```sh', 'echo one', 'echo two', '```'].join('\n');
    expect(shellExamples('README.md', markdown)).toEqual([
      { file: 'README.md', line: 2, code: 'curl -s $API/health' },
      { file: 'README.md', line: 11, code: 'echo one\necho two' },
    ]);
  });

  it('skips a block marked just before it, with the reason; a skip without a reason is refused', () => {
    const markdown = ['<!-- doc-test: skip (starts docker) -->', '', '```bash', 'docker compose up', '```', 'text', '```bash', 'echo run', '```'].join('\n');
    expect(shellExamples('README.md', markdown)).toEqual([
      { file: 'README.md', line: 3, code: 'docker compose up', skip: 'starts docker' },
      { file: 'README.md', line: 7, code: 'echo run' },
    ]);
    expect(() => shellExamples('README.md', '<!-- doc-test: skip () -->\n```bash\nx\n```')).toThrow('must say why');
  });

  it('a fence inside a block does not end it unless it is the same fence', () => {
    const markdown = ['````bash', 'cat <<EOF', '```', 'EOF', '````'].join('\n');
    expect(shellExamples('a.md', markdown).map((e) => e.code)).toEqual(['cat <<EOF\n```\nEOF']);
  });

  it('follows links from the README to docs/*.md pages, each once, and only those', () => {
    const root = mkdtempSync(join(tmpdir(), 'doc-examples-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'README.md'), 'See [the API](docs/api.md#agents), [ops](./docs/ops.md), [bench](BENCHMARKS.md), [web](https://x.example/docs/y.md).\n```bash\necho readme\n```\n');
      writeFileSync(join(root, 'docs', 'api.md'), 'Back to [ops](ops.md) and [the README](../README.md).\n```bash\necho api\n```\n');
      writeFileSync(join(root, 'docs', 'ops.md'), '```sh\necho ops\n```\n');
      expect(linkedDocPages(root, 'README.md', 'x [a](docs/api.md) [b](BENCHMARKS.md)')).toEqual(['docs/api.md']);
      expect(documentationExamples(root).map((e) => `${e.file}: ${e.code}`)).toEqual(['README.md: echo readme', 'docs/api.md: echo api', 'docs/ops.md: echo ops']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
