/**
 * What a data request is made of and how it reads, as pure functions: the body of POST /v1/data-requests, the
 * list's parameters, the view (the caller's number masked) and whether its document can be downloaded.
 */
import {
  findCreateDataRequestProblem, PAGINATION,
  type CreateDataRequestPayload, type DataRequestStatus, type DataRequestType, type DataRequestView, type ServiceError,
} from '@voice/contracts';

export const DATA_REQUEST_ID = /^dr_[0-9a-f]{24}$/;

export interface NewDataRequest {
  type: DataRequestType;
  caller_number: string;
}

const problem = (code: ServiceError['code'], field: string | undefined, message: string, extra: Partial<ServiceError> = {}): { problem: ServiceError } =>
  ({ problem: { code, message, ...(field ? { field } : {}), ...extra } });

/** The body of POST /v1/data-requests, as the contracts' payload states it. */
export function parseDataRequestBody(body: unknown): NewDataRequest | { problem: ServiceError } {
  const refused = findCreateDataRequestProblem(body);
  if (refused) return { problem: refused };
  const { type, caller_number: callerNumber } = body as CreateDataRequestPayload;
  return { type, caller_number: callerNumber };
}

/** page/per_page, like every list of the API; anything else is refused. */
export function parseDataRequestListQuery(query: Record<string, unknown> = {}): { page: number; per_page: number } | { problem: ServiceError } {
  const params = { page: 1, per_page: PAGINATION.defaultPerPage as number };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (name !== 'page' && name !== 'per_page') return problem('invalid_parameter', name, `${name} is not a parameter of this list (parameters: page, per_page).`);
    const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : 0;
    if (n < 1) return problem('invalid_parameter', name, name === 'page' ? 'page must be an integer of at least 1.' : `per_page must be an integer from 1 to ${PAGINATION.maxPerPage}.`);
    params[name] = name === 'per_page' ? Math.min(n, PAGINATION.maxPerPage) : n;
  }
  return params;
}

/** A data request as stored. */
export interface DataRequestRow {
  id: string;
  account_id: string;
  type: DataRequestType;
  caller_number_masked: string;
  status: DataRequestStatus;
  conversations_found: number;
  conversations_done: number;
  created_at: Date;
  completed_at: Date | null;
  download_expires_at: Date | null;
}

export function toDataRequestView(row: DataRequestRow): DataRequestView {
  return {
    id: row.id,
    type: row.type,
    caller_number: row.caller_number_masked,
    status: row.status,
    conversations_found: row.conversations_found,
    conversations_done: row.conversations_done,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    download_expires_at: row.download_expires_at?.toISOString() ?? null,
  };
}

/** Why the request's document cannot be downloaded now, or undefined when it can. */
export function downloadProblem(row: DataRequestRow, now: Date): ServiceError | undefined {
  if (row.type !== 'access') return { code: 'not_found', message: `Data request ${row.id} is an erasure: it has no document.` };
  if (row.status === 'failed') return { code: 'not_found', message: `Data request ${row.id} failed: it has no document; create a new access request.` };
  if (row.status !== 'completed' || !row.download_expires_at) {
    return { code: 'export_not_ready', message: `Data request ${row.id} is ${row.status}; its document is ready once it is completed.` };
  }
  if (row.download_expires_at.getTime() <= now.getTime()) {
    return { code: 'export_expired', message: `The document of data request ${row.id} was deleted 24 hours after it was ready; create a new access request.` };
  }
  return undefined;
}
