import { ApiProblem } from '../api/client';
import { missingScopeOf } from '../rules/problems';

/** An error in place of what could not be loaded or done; a 403 says which scope the key lacks. */
export function ErrorNotice({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const problem = error instanceof ApiProblem ? error : undefined;
  const scope = problem ? missingScopeOf(problem) : undefined;
  return (
    <div className="notice error" role="alert">
      <strong>{scope ? 'Permission needed' : title}</strong>
      {scope ? (
        <p>
          This API key lacks the <code>{scope}</code> scope. Sign in with a key that has it, or create one under API keys.
        </p>
      ) : null}
      {/* The API's own message says the same as the sentence above; it is shown only for other errors. */}
      {scope ? null : <p>{problem?.message ?? (error instanceof Error ? error.message : String(error))}</p>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}
