import { describe, expect, it } from '@jest/globals';
import { anyUnfinished, auditFiltersFromSearch, auditQuery, callerNumberProblem, canDownload, searchWithAuditFilter } from './privacy';

describe('audit log filters in the address', () => {
  it('reads the API-named filters, and days become the whole day for the API', () => {
    const filters = auditFiltersFromSearch('?action=agent.updated&created_after=2026-11-01&created_before=2026-11-02&page=1&other=x');
    expect(filters).toEqual({ action: 'agent.updated', created_after: '2026-11-01', created_before: '2026-11-02' });
    expect(auditQuery(filters)).toEqual({ per_page: 25, action: 'agent.updated', created_after: '2026-11-01T00:00:00.000Z', created_before: '2026-11-02T23:59:59.999Z' });
  });
  it('starts again at page 1 when a filter changes, and leaves empty filters out', () => {
    expect(searchWithAuditFilter({ action: 'agent.created', page: '3' }, 'target_id', 'agt_1')).toBe('?action=agent.created&target_id=agt_1');
    expect(searchWithAuditFilter({ action: 'agent.created' }, 'action', '')).toBe('');
    expect(searchWithAuditFilter({ action: 'agent.created' }, 'page', '2')).toBe('?action=agent.created&page=2');
  });
});

describe('data requests', () => {
  const request = { type: 'access', status: 'completed', conversations_found: 3, conversations_done: 3, download_expires_at: '2026-11-28T10:00:00Z' };
  it('checks the caller number before sending', () => {
    expect(callerNumberProblem(' +14155550100 ')).toBeUndefined();
    expect(callerNumberProblem('555-0100')).toMatch(/E\.164/);
    expect(callerNumberProblem('')).toBe('Enter the caller’s number.');
  });
  it('says when the export can be downloaded, and whether a request is still running', () => {
    expect(canDownload(request, Date.parse('2026-11-28T09:59:00Z'))).toBe(true);
    expect(canDownload(request, Date.parse('2026-11-28T10:01:00Z'))).toBe(false);
    expect(canDownload({ ...request, type: 'erasure' }, 0)).toBe(false);
    expect(anyUnfinished([request, { ...request, status: 'running' }])).toBe(true);
    expect(anyUnfinished([request])).toBe(false);
  });
});
