import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { findBoundaryViolations, importSpecifiers, readSourceTree } from './boundaries.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');

describe('module boundaries', () => {
  it('holds for the whole repository', () => {
    const files = readSourceTree(root);
    expect(files.length).toBeGreaterThan(10);
    expect(findBoundaryViolations(files)).toEqual([]);
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

    it('allows an app to use the libraries and its own files', () => {
      expect(findBoundaryViolations([
        { path: 'apps/agents-service/src/a.ts', text: `import { x } from '@voice/contracts';\nimport { y } from '@voice/service-kit';\nimport { z } from './create-agent/z.js';` },
      ])).toEqual([]);
    });
  });
});
