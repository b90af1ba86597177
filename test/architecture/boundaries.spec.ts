import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { FILTER_COLUMNS } from '../../apps/conversations-service/src/conversation-filters/conversation-filters.js';
import { VOICE_PLATFORMS } from '../../libs/contracts/src/agents.js';
import {
  definesSentimentRank, findBoundaryViolations, findLayoutViolations, findRedefinitions, findWireFieldsOutsidePlatforms, importSpecifiers, lineCount, MAX_SOURCE_LINES,
  PLATFORM_WIRE_FIELDS, readSourceTree, type SourceFile,
} from './boundaries.js';

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

  it('the sentiment rank, the plain-object check and the list filters’ SQL are each written once', () => {
    // tools/ too: the platform simulators read request bodies with the same check.
    expect(findRedefinitions(readSourceTree(root, ['apps', 'libs', 'tools']), FILTER_COLUMNS)).toEqual([]);
  });

  it('a voice platform’s wire fields are named only in its folder of libs/voice-platforms', () => {
    expect(findWireFieldsOutsidePlatforms(readSourceTree(root))).toEqual([]);
  });

  it('every voice platform of the API has its folder with the field table, management dialect, webhook, end reasons, signature and body schema', () => {
    const paths = new Set(readSourceTree(root).map((f) => f.path));
    const files = ['index.ts', 'agent-fields.ts', 'management.ts', 'webhook.ts', 'end-reasons.ts', 'signature.ts', 'webhook-schema.ts'];
    const missing = VOICE_PLATFORMS.flatMap((platform) => files.map((file) => `libs/voice-platforms/src/${platform.replace('_', '-')}/${file}`)).filter((path) => !paths.has(path));
    expect(VOICE_PLATFORMS.length).toBeGreaterThan(1);
    expect(missing).toEqual([]);
  });

  it('every app has its start function and entry point', () => {
    const paths = new Set(readSourceTree(root).map((f) => f.path));
    for (const app of ['api-gateway', 'agents-service', 'conversations-service', 'notifications-service']) {
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
        'contracts depends only on its validation libraries (class-validator, class-transformer, ajv, TypeBox)',
        'contracts depends only on its validation libraries (class-validator, class-transformer, ajv, TypeBox)',
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
        { path: 'apps/api-gateway/src/b.ts', text: `import { verifyWebhook } from '@voice/voice-platforms';` },
      ])).toEqual([]);
    });

    it('keeps voice-platforms between contracts/service-kit and the apps', () => {
      const violations = findBoundaryViolations([
        { path: 'libs/contracts/src/a.ts', text: `import { x } from '@voice/voice-platforms';` },
        { path: 'libs/service-kit/src/b.ts', text: `import { x } from '../../voice-platforms/src/x.js';` },
        { path: 'libs/voice-platforms/src/c.ts', text: `import { x } from '@voice/platform-simulators';` },
        { path: 'libs/voice-platforms/src/platform-a/d.ts', text: `import { x } from '../../../../apps/agents-service/src/x.js';` },
      ]);
      // contracts also breaks its own rules by that import; only the layering rules are looked at here.
      const layering = violations.filter((v) => v.rule.includes('voice-platforms') || v.rule.includes('imports an app'));
      expect(layering.map((v) => [v.file, v.rule])).toEqual([
        ['libs/contracts/src/a.ts', 'a library imports voice-platforms'],
        ['libs/service-kit/src/b.ts', 'a library imports voice-platforms'],
        ['libs/voice-platforms/src/c.ts', 'voice-platforms imports a library other than contracts and service-kit'],
        ['libs/voice-platforms/src/platform-a/d.ts', 'a library imports an app'],
      ]);
      expect(findBoundaryViolations([
        { path: 'libs/voice-platforms/src/e.ts', text: `import { x } from '@voice/contracts';\nimport { y } from '@voice/service-kit';\nimport { z } from './platform-a/index.js';` },
        { path: 'libs/voice-platforms/src/platform-a/adapter.int-spec.ts', text: `import { PlatformASimulator } from '@voice/platform-simulators';` },
      ])).toEqual([]);
    });
  });

  describe('the once checker', () => {
    const service = 'apps/conversations-service/src';
    const rulesOf = (files: SourceFile[]) => findRedefinitions(files, FILTER_COLUMNS).map((v) => [v.file, v.rule]);

    it.each([
      `const SENTIMENT_RANK = { negative: 0, neutral: 1, positive: 2 } as const;`,
      `const rank = { "positive": 2, "neutral": 1, "negative": 0 };`,
      `return sentiment === 'negative' ? 0 : sentiment === 'neutral' ? 1 : sentiment === 'positive' ? 2 : null;`,
      `switch (s) { case 'negative': return -1; case 'neutral': return 0; case 'positive': return 1; }`,
      `const ranks = new Map([['negative', 0], ['neutral', 1], ['positive', 2]]);`,
      `SELECT CASE sentiment WHEN 'negative' THEN 0 WHEN 'neutral' THEN 1 WHEN 'positive' THEN 2 END`,
      `const byRank = { positive: 0, neutral: 1, negative: 2 };`,
      `const ORDER = ['negative', 'neutral', 'positive']; const rank = ORDER.indexOf(s);`,
    ])('flags a sentiment rank anywhere but its home: %s', (text) => {
      expect(definesSentimentRank(text)).toBe(true);
      expect(rulesOf([{ path: 'apps/api-gateway/src/x.ts', text }, { path: 'libs/contracts/src/conversation-filters.ts', text }, { path: `${service}/x.spec.ts`, text }]))
        .toEqual([['apps/api-gateway/src/x.ts', 'a sentiment rank outside its home']]);
    });

    it.each([
      `const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);`,
      `function isRecord(v: unknown) { return typeof v == "object" && v != null && !Array.isArray(v); }`,
      `if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;`,
      `items.every((item) => typeof item.body === 'object' && item.body !== null && !Array.isArray(item.body) && item.ok);`,
    ])('flags a plain-object check anywhere but its home, under any name: %s', (text) => {
      expect(rulesOf([{ path: 'libs/voice-platforms/src/x.ts', text }, { path: 'libs/contracts/src/plain-object.ts', text }, { path: `${service}/x.spec.ts`, text }]))
        .toEqual([['libs/voice-platforms/src/x.ts', 'a plain-object check outside its home']]);
    });

    it.each([
      `if (typeof value === 'object' && value !== null) return value;`,
      `return typeof a === 'object' && b !== null && !Array.isArray(a);`,
      `import { isPlainObject } from '@voice/contracts'; if (isPlainObject(body)) read(body);`,
    ])('lets other object tests and uses of the shared check pass: %s', (text) => {
      expect(rulesOf([{ path: 'apps/api-gateway/src/x.ts', text }])).toEqual([]);
    });

    it.each([
      `by_sentiment: { positive: 120, neutral: 50, negative: 30, unknown: 14 }`,
      `by_sentiment: { positive: 0, neutral: 0, negative: 0 }`,
      `export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;`,
      `message: 'sentiment must be one of positive, neutral, negative.'`,
    ])('does not take counts or the list of sentiments for a rank: %s', (text) => {
      expect(definesSentimentRank(text)).toBe(false);
    });

    it.each([
      ['a comparison template', 'const add = (c: string, p: string) => `${c} >= ${p}::int`;'],
      ['a comparison template on a side table', 'where.push(`${alias}.status = $${params.length}`);'],
      ['a filter column compared with a parameter', 'db.query(`SELECT id FROM conversations.conversation_search WHERE account_id = $1 AND search_text LIKE $2 ESCAPE \'\\\\\'`, p);'],
      ['a filter column compared with an interpolated parameter', "db.query(`SELECT count(*) FROM conversations.conversations c WHERE c.account_id = $1 AND c.duration <= ${p}`, p);"],
      ['a topic compared with a parameter', "db.query('SELECT 1 FROM conversations.conversation_topics t WHERE t.account_id = $1 AND t.topic = $2', p);"],
    ])('flags %s in conversations-service outside the filters’ module', (_, text) => {
      expect(rulesOf([
        { path: `${service}/list-conversations/x.store.ts`, text },
        { path: `${service}/conversation-filters/conversation-filters.ts`, text },
        { path: `${service}/list-conversations/x.int-spec.ts`, text },
      ])).toEqual([[`${service}/list-conversations/x.store.ts`, "a filter predicate outside the filters' module"]]);
    });

    it('lets other SQL compare columns of the same names: other tables, ids, aggregates, joins', () => {
      expect(rulesOf([
        { path: `${service}/replay-parked-events/x.store.ts`, text: "db.query('SELECT seq FROM conversations.parked_events WHERE agent_id = $1 LIMIT $2', p);" },
        { path: `${service}/conversation/x.store.ts`, text: 'db.query(`SELECT * FROM conversations.conversations c WHERE c.account_id = $1 AND c.id = $2`, p);' },
        { path: `${service}/conversation-stats/x.store.ts`, text: "const counts = `count(*) FILTER (WHERE c.${column} = '${v}')`;" },
        { path: `${service}/list-conversations/x.store.ts`, text: 'db.query(`SELECT c.id FROM conversations.conversations c JOIN conversations.agents a ON a.agent_id = c.agent_id WHERE ${sql.where}`);' },
      ])).toEqual([]);
    });
  });

  describe('the wire-field checker', () => {
    it('flags a platform wire field in an app, a library or the shared part of voice-platforms, once per field and file', () => {
      const violations = findWireFieldsOutsidePlatforms([
        { path: 'apps/api-gateway/src/webhooks/x.ts', text: `const reason = body.call.disconnection_reason ?? body.call.disconnection_reason;` },
        { path: 'libs/contracts/src/y.ts', text: `/** the assistantId of platform_b */` },
        { path: 'libs/voice-platforms/src/webhooks/z.ts', text: `read(message, 'endedReason')` },
      ]);
      expect(violations.map((v) => [v.file, v.detail?.split(':')[0]])).toEqual([
        ['apps/api-gateway/src/webhooks/x.ts', 'disconnection_reason'],
        ['libs/contracts/src/y.ts', 'assistantId'],
        ['libs/voice-platforms/src/webhooks/z.ts', 'endedReason'],
      ]);
    });

    it('lets the platform folders, tests and generated files name them, and other words contain them', () => {
      const text = `const a = { call_analysis: 1, firstMessage: 'hi' };`;
      expect(findWireFieldsOutsidePlatforms([
        { path: 'libs/voice-platforms/src/platform-a/webhook.ts', text },
        { path: 'libs/voice-platforms/src/platform-c/management.ts', text },
        { path: 'apps/api-gateway/src/webhooks/webhook-ingest.decider.spec.ts', text },
        { path: 'apps/agents-service/src/platform-sync/lifecycle.int-spec.ts', text },
        { path: 'apps/console/src/api/schema.generated.ts', text },
        { path: 'apps/agents-service/src/x.ts', text: `const my_call_analysis_count = 0; const firstMessages = []; const pre-endedReason = 1;` },
      ])).toEqual([]);
    });

    it('lists fields of both platforms', () => {
      expect(PLATFORM_WIRE_FIELDS).toEqual(expect.arrayContaining(['call_analysis', 'disconnection_reason', 'assistantId', 'endedReason']));
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
