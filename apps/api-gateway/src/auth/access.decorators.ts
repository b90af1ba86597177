import { SetMetadata } from '@nestjs/common';
import type { Scope } from './scopes.js';

export const ACCESS_METADATA = 'gateway:access';

/** How a route is reached: every route declares one, and a route without one is refused (deny by default). */
export type Access = { kind: 'public' } | { kind: 'admin' } | { kind: 'scope'; scope: Scope };

/** Open to anyone (health checks). */
export const Public = () => SetMetadata(ACCESS_METADATA, { kind: 'public' } satisfies Access);
/** Operator routes, authenticated with ADMIN_TOKEN. */
export const AdminOnly = () => SetMetadata(ACCESS_METADATA, { kind: 'admin' } satisfies Access);
/** An API key of an account carrying this scope. */
export const RequireScope = (scope: Scope) => SetMetadata(ACCESS_METADATA, { kind: 'scope', scope } satisfies Access);
