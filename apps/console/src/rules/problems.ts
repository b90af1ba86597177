/** What the console needs from an API error envelope ({ error: { code, message, field? } }) and its status. */
export interface Problem {
  status: number;
  code: string;
  message: string;
  field?: string;
}

/** An error body as the API sends it, or anything else a broken proxy might return. */
export function problemOf(status: number, body: unknown): Problem {
  const error = (body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    return { status, code: error.code, message: error.message, ...(typeof error.field === 'string' ? { field: error.field } : {}) };
  }
  return { status, code: status >= 500 ? 'internal_error' : 'unexpected_response', message: `The API answered ${status} without an error description.` };
}

/** The scope a 403 insufficient_permissions names ("This API key lacks the agents:write scope required by …"). */
export function missingScopeOf(problem: Problem): string | undefined {
  if (problem.code !== 'insufficient_permissions') return undefined;
  return /\b([a-z_]+:(?:read|write))\b/.exec(problem.message)?.[1];
}

/**
 * The form field an error belongs to: `field` may name a nested value (business_hours.schedule[0].open,
 * metadata.team); the form shows it at the top-level input that holds it. Undefined when the error is not
 * about one of the form's fields (it is then shown for the whole form).
 */
export function formFieldOf(problem: Pick<Problem, 'field'>, formFields: readonly string[]): string | undefined {
  const top = problem.field?.split(/[.[]/)[0];
  return top && formFields.includes(top) ? top : undefined;
}

/**
 * The API's message as the form shows it beside a control: the request's field name (start_date,
 * business_hours.schedule[0].close) becomes the control's label ("From"), so a person reads what is on screen.
 */
export function inControlWords(message: string, field: string | undefined, label: string): string {
  if (!field) return message;
  const replaced = message.split(field).join(label);
  return replaced.charAt(0).toUpperCase() + replaced.slice(1);
}
