import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { gatewayControllers, GatewayModule } from '../gateway.module.js';
import type { GatewaySettings } from '../tokens.js';
import { API_BASE_URL_EXAMPLE } from './examples.js';
import { buildOpenApiDocument } from './openapi-document.js';

/**
 * The document the gateway serves for these settings, without a database, NATS
 * or a listening socket: the same module and controllers in Nest's preview mode,
 * which resolves the dependency graph but instantiates nothing, so the
 * resources are never touched. For tests and tooling (exporting the document).
 */
export async function standaloneOpenApiDocument(settings: Pick<GatewaySettings, 'adminToken'> = {}): Promise<OpenAPIObject> {
  const full: GatewaySettings = { namespace: undefined, adminToken: settings.adminToken, rpcTimeoutMs: 1, publicUrl: API_BASE_URL_EXAMPLE };
  const unused = undefined as never;
  const app = await NestFactory.create(
    GatewayModule.forRoot({ settings: full, dataSource: unused, rpc: unused, streams: unused, busProbe: unused, logger: unused }),
    new FastifyAdapter(),
    { preview: true, logger: false, abortOnError: false },
  );
  try {
    return buildOpenApiDocument(app, gatewayControllers(full));
  } finally {
    await app.close();
  }
}
