import createClient from 'openapi-fetch';
import type { components, paths } from './schema.generated';
import { problemOf, type Problem } from '../rules/problems';
import { currentKey } from '../session/session';

export type Schemas = components['schemas'];

/** Same origin as the console: the gateway serves both. Every call carries the session's key. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use({
  onRequest({ request }) {
    const key = currentKey();
    if (key) request.headers.set('Authorization', `Bearer ${key}`);
    return request;
  },
});

/** An API error as the views show it. */
export class ApiProblem extends Error implements Problem {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  constructor(problem: Problem) {
    super(problem.message);
    this.status = problem.status;
    this.code = problem.code;
    if (problem.field) this.field = problem.field;
  }
}

/** The body of a successful answer, or an ApiProblem carrying the error envelope. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (err) {
    throw new ApiProblem({ status: 0, code: 'network_error', message: `The API could not be reached (${(err as Error).message}).` });
  }
  if (!result.response.ok) throw new ApiProblem(problemOf(result.response.status, result.error));
  return result.data as T;
}

/** A file the API serves (a transcript format), fetched with the key and handed to the browser as a download. */
export async function downloadFile(path: string, fileName: string): Promise<void> {
  const headers: Record<string, string> = {};
  const key = currentKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(path, { headers });
  if (!response.ok) throw new ApiProblem(problemOf(response.status, await response.json().catch(() => undefined)));
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
