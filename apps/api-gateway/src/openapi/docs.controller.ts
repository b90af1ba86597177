import { Controller, Get, Header, Injectable, Param, Res } from '@nestjs/common';
import { ApiParam, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Public } from '../auth/access.decorators.js';
import { apiFailure } from '../http/api-failure.js';
import { ApiErrors, ApiRoute } from './route-docs.js';

/** The document is built from the running application after Nest has created it, then handed to the controller here. */
@Injectable()
export class OpenApiDocumentHolder {
  document: OpenAPIObject | undefined;
}

/** The Swagger UI files the page needs, read once from the swagger-ui-dist package (no CDN: the page works offline). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const assetDir = (createRequire(import.meta.url)('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
const assetCache = new Map<string, Buffer>();

const INIT_SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Voice-agent operations API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

@Controller()
export class DocsController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get('v1/openapi.json')
  @Public()
  @ApiRoute('Documentation', 'This OpenAPI 3.1 document', 'The raw document, not wrapped in an envelope.')
  @ApiResponse({
    status: 200,
    description: 'The OpenAPI document.',
    content: {
      'application/json': {
        schema: { type: 'object', required: ['openapi', 'info', 'paths'] },
        example: {
          openapi: '3.1.0',
          info: { title: 'Voice-agent operations API', version: '1.0.0' },
          paths: { '/v1/agents': { get: { tags: ['Agents'], summary: 'List agents', 'x-required-scope': 'agents:read' } } },
        },
      },
    },
  })
  openapi(): OpenAPIObject {
    if (!this.holder.document) throw apiFailure('service_unavailable', 'The API description is not ready yet.');
    return this.holder.document;
  }

  @Get('docs')
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @ApiRoute('Documentation', 'Interactive documentation (Swagger UI)')
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'An HTML page rendering this document; it loads its assets from /docs/…, never from elsewhere.',
    content: { 'text/html': { schema: { type: 'string' }, example: PAGE } },
  })
  page(): string {
    return PAGE;
  }

  @Get('docs/:asset')
  @Public()
  @ApiRoute('Documentation', 'A static file of the documentation page')
  @ApiParam({ name: 'asset', required: true, schema: { type: 'string', enum: [...Object.keys(ASSETS), 'swagger-initializer.js'] } })
  @ApiErrors('not_found')
  @ApiResponse({
    status: 200,
    description: 'The file (the PNG is binary, so it has no example).',
    content: {
      'text/css': { schema: { type: 'string' }, example: '.swagger-ui{color:#3b4151;font-family:sans-serif}\n' },
      'text/javascript': { schema: { type: 'string' }, example: INIT_SCRIPT },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  })
  asset(@Param('asset') asset: string, @Res() res: FastifyReply): void {
    if (asset === 'swagger-initializer.js') {
      res.type('text/javascript; charset=utf-8').send(INIT_SCRIPT);
      return;
    }
    const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    if (!type) throw apiFailure('not_found', `No documentation asset ${asset}.`);
    let content = assetCache.get(asset);
    if (!content) {
      content = readFileSync(join(assetDir, asset));
      assetCache.set(asset, content);
    }
    res.type(type).header('Cache-Control', 'public, max-age=3600').send(content);
  }
}
