import { describe, expect, it } from '@jest/globals';
import { Controller, Delete, Get, Patch, Post } from '@nestjs/common';
import { handlersOf, matchRoute, routesOf, ServesPathValues } from './route-table.js';

@Controller('v1/things')
class ThingsController {
  @Get() list() {}
  @Post() create() {}
  @Get(':id') get() {}
  @Patch(':id') update() {}
  @Delete(':id') remove() {}
  @Get(':id/parts') parts() {}
}

@Controller('health')
class HealthController {
  @Get() health() {}
}

@Controller('v1/hooks')
class HooksController {
  @Post(':kind/:id')
  @ServesPathValues('kind', ['red', 'blue'])
  receive() {}
}

describe('route table', () => {
  const routes = routesOf([ThingsController, HealthController]);

  it('is read from the controllers', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      ['DELETE /v1/things/:id', 'GET /health', 'GET /v1/things', 'GET /v1/things/:id', 'GET /v1/things/:id/parts', 'PATCH /v1/things/:id', 'POST /v1/things'].sort(),
    );
  });

  it('finds a route by method and path (HEAD served by GET, trailing slash tolerated)', () => {
    expect(matchRoute(routes, 'GET', '/v1/things/abc').kind).toBe('found');
    expect(matchRoute(routes, 'HEAD', '/v1/things').kind).toBe('found');
    expect(matchRoute(routes, 'GET', '/v1/things/abc/parts/').kind).toBe('found');
  });

  it('tells a wrong method (with the allowed ones) from an unknown path', () => {
    expect(matchRoute(routes, 'PUT', '/v1/things/abc')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'] });
    expect(matchRoute(routes, 'DELETE', '/v1/things')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST', 'OPTIONS'] });
    expect(matchRoute(routes, 'GET', '/v1/thing')).toEqual({ kind: 'not_found' });
    expect(matchRoute(routes, 'GET', '/v1/things/a/b')).toEqual({ kind: 'not_found' });
    expect(matchRoute(routes, 'GET', '/v2/things')).toEqual({ kind: 'not_found' });
  });

  it('serves a ServesPathValues parameter only for its values: any other value is an unknown path, not a wrong method', () => {
    const hooks = routesOf([HooksController]);
    expect(hooks.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/hooks/red/:id', 'POST /v1/hooks/blue/:id']);
    expect(matchRoute(hooks, 'POST', '/v1/hooks/blue/h1').kind).toBe('found');
    expect(matchRoute(hooks, 'POST', '/v1/hooks/green/h1')).toEqual({ kind: 'not_found' });
    expect(matchRoute(hooks, 'GET', '/v1/hooks/green/h1')).toEqual({ kind: 'not_found' });
    expect(matchRoute(hooks, 'GET', '/v1/hooks/red/h1')).toEqual({ kind: 'method_not_allowed', allow: ['POST', 'OPTIONS'] });
    expect(handlersOf([HooksController]).map((h) => [h.path, h.declaredPath, h.pathValue])).toEqual([
      ['/v1/hooks/red/:id', '/v1/hooks/:kind/:id', { param: 'kind', value: 'red' }],
      ['/v1/hooks/blue/:id', '/v1/hooks/:kind/:id', { param: 'kind', value: 'blue' }],
    ]);
  });
});
