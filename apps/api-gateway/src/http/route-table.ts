import { RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';

export interface RouteEntry {
  method: string;
  path: string;
  pattern: RegExp;
}

export type RouteMatch =
  | { kind: 'found'; route: RouteEntry }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : ''];
}

function joinPath(...parts: string[]): string {
  const joined = parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/');
  return `/${joined}`;
}

function patternOf(path: string): RegExp {
  const body = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`, 'i');
}

export const PATH_VALUES_METADATA = 'gateway:path-values';

/** A path parameter that takes only the listed values (see ServesPathValues). */
export interface PathValues {
  param: string;
  values: readonly string[];
}

/**
 * The route serves its path parameter `param` only for `values`: the route table and the document hold one
 * path per value, so any other value is an unknown path (404 route_not_found), as a path never declared is.
 */
export const ServesPathValues = (param: string, values: readonly string[]) => SetMetadata(PATH_VALUES_METADATA, { param, values } satisfies PathValues);

export interface RouteHandler {
  method: string;
  /** The concrete path served: the declared path with a ServesPathValues parameter filled in. */
  path: string;
  /** The path as the controller declares it. */
  declaredPath: string;
  /** The value of the ServesPathValues parameter this path stands for. */
  pathValue?: { param: string; value: string };
  controller: Type;
  handler: (...args: unknown[]) => unknown;
}

function servedPaths(path: string, pathValues: PathValues | undefined): Array<{ path: string; pathValue?: { param: string; value: string } }> {
  const segment = pathValues && `:${pathValues.param}`;
  if (!pathValues || !path.split('/').includes(segment!)) return [{ path }];
  return pathValues.values.map((value) => ({
    path: path.split('/').map((part) => (part === segment ? value : part)).join('/'),
    pathValue: { param: pathValues.param, value },
  }));
}

/** Every (method, path) a controller declares, with the handler: what the route table and the OpenAPI document are built from. */
export function handlersOf(controllers: Type[]): RouteHandler[] {
  const handlers: RouteHandler[] = [];
  for (const controller of controllers) {
    const prefixes = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const pathValues = Reflect.getMetadata(PATH_VALUES_METADATA, handler) as PathValues | undefined;
      for (const prefix of prefixes) {
        for (const sub of pathsOf(Reflect.getMetadata(PATH_METADATA, handler))) {
          const declaredPath = joinPath(prefix, sub);
          for (const served of servedPaths(declaredPath, pathValues)) {
            handlers.push({ method: RequestMethod[method], ...served, declaredPath, controller, handler: handler as RouteHandler['handler'] });
          }
        }
      }
    }
  }
  return handlers;
}

/**
 * The routes the registered controllers declare, read from Nest's own route
 * metadata so the table can never drift from the controllers.
 */
export function routesOf(controllers: Type[]): RouteEntry[] {
  return handlersOf(controllers).map(({ method, path }) => ({ method, path, pattern: patternOf(path) }));
}

/** HEAD is served by GET routes (Fastify does so), and every known path answers OPTIONS. */
export function allowedMethods(routes: RouteEntry[]): string[] {
  const methods = new Set(routes.map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  return order.filter((m) => methods.has(m));
}

export function matchRoute(routes: RouteEntry[], method: string, path: string): RouteMatch {
  const onPath = routes.filter((r) => r.pattern.test(path));
  if (onPath.length === 0) return { kind: 'not_found' };
  const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const route = onPath.find((r) => r.method === wanted);
  if (route) return { kind: 'found', route };
  return { kind: 'method_not_allowed', allow: allowedMethods(onPath) };
}
