import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewaySettings } from '../tokens.js';
import { Type, type Static } from '@sinclair/typebox';
import { apiError, ClosedObject, DateTime, type ErrorEnvelope, type PageResult, type ServiceError } from '@voice/contracts';
import { requestIdOf } from './gateway-request.js';
import { linksOrigin, pageLinks, pageMeta, PageMetaSchema, type PageLinks } from './pagination.js';

export const MetaSchema = ClosedObject({ request_id: Type.String({ description: 'The X-Request-Id of the answer.' }), timestamp: DateTime() });
export type Meta = Static<typeof MetaSchema>;

/** A list's meta: its page and the answer's request. */
export const ListMetaSchema = ClosedObject({ ...PageMetaSchema.properties, request_id: Type.String(), timestamp: DateTime() });
export type ListMeta = Static<typeof ListMetaSchema>;
export interface Envelope<T> {
  data: T;
  meta: Meta;
}
export interface ListEnvelope<T> {
  data: T[];
  meta: ListMeta;
  links: PageLinks;
}

export function metaFor(requestId: string): Meta {
  return { request_id: requestId, timestamp: new Date().toISOString() };
}

export function success<T>(req: FastifyRequest, data: T): Envelope<T> {
  return { data, meta: metaFor(requestIdOf(req)) };
}

const SETTINGS_DECORATION = 'gatewaySettings';

/** Lets listEnvelope see PUBLIC_URL (the same object the module holds, completed once the gateway listens). */
export function shareSettingsWithEnvelopes(server: FastifyInstance, settings: GatewaySettings): void {
  server.decorate(SETTINGS_DECORATION, settings);
}

function settingsOf(req: FastifyRequest): GatewaySettings | undefined {
  return (req.server as unknown as Record<string, GatewaySettings | undefined> | undefined)?.[SETTINGS_DECORATION];
}

/** A list envelope from a service's PageResult: pagination meta plus absolute page links that keep every filter. */
export function listEnvelope<T>(req: FastifyRequest, page: PageResult<T>): ListEnvelope<T> {
  const { pathname, search } = new URL(req.url, 'http://placeholder');
  const settings = settingsOf(req);
  const origin = linksOrigin({
    configuredPublicUrl: settings?.publicUrlConfigured ? settings.publicUrl : undefined,
    ownUrl: settings?.publicUrl ?? 'http://localhost',
    protocol: req.protocol,
    host: req.headers.host,
  });
  const baseUrl = `${origin}${pathname}`;
  return {
    data: page.items,
    meta: { ...pageMeta(page.total, page.page, page.per_page), ...metaFor(requestIdOf(req)) },
    links: pageLinks({ baseUrl, search, page: page.page, perPage: page.per_page, total: page.total }),
  };
}

export function errorEnvelope(error: ServiceError, requestId: string): ErrorEnvelope {
  return { error: { ...apiError(error), request_id: requestId } };
}
