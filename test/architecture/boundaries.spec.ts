import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { findBoundaryViolations, findLayoutViolations, importSpecifiers, lineCount, MAX_SOURCE_LINES, readSourceTree, type SourceFile } from './boundaries.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');

describe('module boundaries', () => {
  it('holds for the whole repository', () => {
    const files = readSourceTree(root);
    expect(files.length).toBeGreaterThan(10);
    expect(findBoundaryViolations(files)).toEqual([]);
  });

  it('every app keeps its migrations under src/database/migrations/', () => {
    const misplaced = findLayoutViolations(readSourceTree(root)).filter((v) => v.rule.startsWith('a migration'));
    expect(misplaced).toEqual([]);
  });

  it(`no source file other than a test is over ${MAX_SOURCE_LINES} lines`, () => {
    const oversized = findLayoutViolations(readSourceTree(root)).filter((v) => v.rule.startsWith('a non-test source file'));
    expect(oversized).toEqual([]);
  });

  it('every app has its start function and entry point', () => {
    const paths = new Set(readSourceTree(root).map((f) => f.path));
    for (const app of ['api-gateway', 'agents-service', 'conversations-service']) {
      expect(paths.has(`apps/${app}/src/app.ts`)).toBe(true);
      expect(paths.has(`apps/${app}/src/main.ts`)).toBe(true);
    }
  });

  describe('the checker itself', () => {
    it('finds static, dynamic and side-effect imports', () => {
      expect(importSpecifiers(`import { a } from './a.js';\nexport * from "../b.js";\nconst c = await import('c');\nimport 'reflect-metadata';`)).toEqual([
        './a.js', '../b.js', 'c', 'reflect-metadata',
      ]);
    });

    it('flags an app importing another app, by path or package', () => {
      const violations = findBoundaryViolations([
        { path: 'apps/api-gateway/src/x.ts', text: `import { y } from '../../agents-service/src/y.js';` },
        { path: 'apps/api-gateway/src/z.ts', text: `import { y } from '@voice/conversations-service';` },
      ]);
      expect(violations.map((v) => v.rule)).toEqual(['an app imports another app', 'an app imports another app']);
    });

    it('flags libraries importing apps and contracts importing frameworks', () => {
      const violations = findBoundaryViolations([
        { path: 'libs/service-kit/src/a.ts', text: `import { x } from '../../../apps/agents-service/src/x.js';` },
        { path: 'libs/contracts/src/b.ts', text: `import { Injectable } from '@nestjs/common';\nimport { y } from '@voice/service-kit';` },
      ]);
      expect(violations.map((v) => v.rule)).toEqual([
        'a library imports an app',
        'contracts depends only on class-validator/class-transformer',
        'contracts depends only on class-validator/class-transformer',
        'contracts imports another library',
      ]);
    });

    it('flags pure domain files that import infrastructure', () => {
      const violations = findBoundaryViolations([
        { path: 'apps/agents-service/src/agent/agent.decider.ts', text: `import { DataSource } from 'typeorm';` },
        { path: 'apps/agents-service/src/agent/agent.decider.spec.ts', text: `import { x } from './agent.decider.js';` },
      ]);
      expect(violations).toEqual([{ file: 'apps/agents-service/src/agent/agent.decider.ts', specifier: 'typeorm', rule: 'pure domain code imports infrastructure' }]);
    });

    const PURE_FILES = [
      'apps/agents-service/src/agent/agent.decider.ts',
      'apps/conversations-service/src/conversation/conversation.evolve.ts',
      'apps/conversations-service/src/conversation/agent-policy.rules.ts',
    ];
    const FORBIDDEN = [
      'typeorm', 'typeorm/browser', 'pg', 'pg/lib/client.js', '@nestjs/common', '@nestjs/cqrs', '@nestjs/microservices', '@nats-io/jetstream', '@nats-io/transport-node',
    ];

    it.each(PURE_FILES)('flags every framework, database and bus import in the pure file %s, however it is written', (path) => {
      for (const specifier of FORBIDDEN) {
        for (const text of [`import { x } from '${specifier}';`, `import type { X } from "${specifier}";`, `export { y } from '${specifier}';`, `const z = await import('${specifier}');`]) {
          expect(findBoundaryViolations([{ path, text }])).toEqual([{ file: path, specifier, rule: 'pure domain code imports infrastructure' }]);
        }
      }
    });

    it.each(PURE_FILES)('lets the pure file %s import the contracts, node built-ins, plain libraries and its siblings', (path) => {
      const text = [`import { x } from '@voice/contracts';`, `import { randomUUID } from 'node:crypto';`, `import { y } from './agent.events.js';`, `import { z } from 'class-validator';`, `import { pgEscape } from 'pgvector-utils';`].join('\n');
      expect(findBoundaryViolations([{ path, text }])).toEqual([]);
    });

    it('lets the other files of a service use the infrastructure, tests of pure files included', () => {
      const files = ['agent.store.ts', 'agent.module.ts', 'agent.decider.spec.ts', 'agents.repository.ts'].map((name) => ({
        path: `apps/agents-service/src/agent/${name}`,
        text: FORBIDDEN.map((specifier) => `import '${specifier}';`).join('\n'),
      }));
      expect(findBoundaryViolations(files)).toEqual([]);
    });

    it('allows an app to use the libraries and its own files', () => {
      expect(findBoundaryViolations([
        { path: 'apps/agents-service/src/a.ts', text: `import { x } from '@voice/contracts';\nimport { y } from '@voice/service-kit';\nimport { z } from './create-agent/z.js';` },
      ])).toEqual([]);
    });
  });

  describe('the layout checker', () => {
    const file = (path: string, lines = 1): SourceFile => ({ path, text: 'x\n'.repeat(lines) });
    const rulesOf = (files: SourceFile[]) => findLayoutViolations(files).map((v) => [v.file, v.rule]);

    it('accepts migrations in each app’s src/database/migrations/, and files merely named like one elsewhere in the repository', () => {
      expect(rulesOf([
        file('apps/api-gateway/src/database/migrations/1763800000000-create-accounts-and-api-keys.ts'),
        file('apps/agents-service/src/database/migrations/1732250000000-create-agents-schema.ts'),
        file('apps/conversations-service/src/database/migrations/1732240000000-conversations-schema.ts'),
        file('apps/agents-service/src/agent/2024-notes.ts'),
        file('apps/agents-service/src/database/123456789012-too-short.ts'),
        file('libs/service-kit/src/1732250000000-not-an-app.ts'),
      ])).toEqual([]);
    });

    it('flags a migration anywhere else under an app’s src/, including beside its migrations folder or in another app’s', () => {
      expect(rulesOf([
        file('apps/agents-service/src/migrations/1732250000000-create-agents-schema.ts'),
        file('apps/conversations-service/src/database/1732240000000-conversations-schema.ts'),
        file('apps/conversations-service/src/1732240000000-conversations-schema.ts'),
        file('apps/agents-service/src/agent/database/migrations/1732250000000-nested.ts'),
      ])).toEqual([
        ['apps/agents-service/src/migrations/1732250000000-create-agents-schema.ts', 'a migration outside src/database/migrations/'],
        ['apps/conversations-service/src/database/1732240000000-conversations-schema.ts', 'a migration outside src/database/migrations/'],
        ['apps/conversations-service/src/1732240000000-conversations-schema.ts', 'a migration outside src/database/migrations/'],
        ['apps/agents-service/src/agent/database/migrations/1732250000000-nested.ts', 'a migration outside src/database/migrations/'],
      ]);
      expect(findLayoutViolations([file('apps/agents-service/src/migrations/1732250000000-a.ts')])[0].detail).toBe('move it to apps/agents-service/src/database/migrations/');
    });

    it(`flags a source file over ${MAX_SOURCE_LINES} lines in apps/ or libs/, but not tests or generated files`, () => {
      expect(rulesOf([
        file('apps/api-gateway/src/openapi/schemas.ts', MAX_SOURCE_LINES),
        file('libs/service-kit/src/message-streams.ts', MAX_SOURCE_LINES + 1),
        file('apps/agents-service/src/main.mjs', MAX_SOURCE_LINES + 1),
        file('apps/agents-service/src/agent/agent.decider.spec.ts', 900),
        file('apps/conversations-service/src/store.int-spec.ts', 900),
        file('test/support/system.ts', 900),
        file('apps/console/src/api/schema.generated.ts', 10_000),
      ])).toEqual([
        ['libs/service-kit/src/message-streams.ts', `a non-test source file over ${MAX_SOURCE_LINES} lines`],
        ['apps/agents-service/src/main.mjs', `a non-test source file over ${MAX_SOURCE_LINES} lines`],
      ]);
      expect(findLayoutViolations([file('libs/contracts/src/big.ts', 401)])[0].detail).toBe('401 lines');
    });

    it('counts lines as an editor numbers them', () => {
      expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n'), lineCount('\n\n')]).toEqual([0, 1, 1, 2, 2, 2]);
    });
  });
});
