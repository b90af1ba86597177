import { describe, expect, it } from '@jest/globals';
import { Controller, Delete, Get, Patch, Post } from '@nestjs/common';
import { matchRoute, routesOf } from './route-table.js';

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
});
