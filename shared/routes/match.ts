import { ROUTES } from './index.ts';
import { BASE_PATH, type RouteDef } from './route.ts';

interface Compiled {
  route: RouteDef;
  pattern: RegExp;
  names: string[];
}

const compiled: Compiled[] = ROUTES.map((route) => {
  const names: string[] = [];
  const source = `${BASE_PATH}${route.path}`
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
});

const decode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

export type RouteMatch =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** Matches a request the way API Gateway does: an exact method and path, one segment per `{param}`. */
export function matchRoute(method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const { route, pattern, names } of compiled) {
    const found = pattern.exec(path);
    if (!found) continue;
    if (route.method !== method) {
      // Two routes may match one path (`/console/scripts/{asset}` and `/console/{page}/{id}`): name a method once.
      if (!allow.includes(route.method)) allow.push(route.method);
      continue;
    }
    const params = Object.fromEntries(names.map((name, index) => [name, decode(found[index + 1]!)]));
    return { kind: 'route', route, params };
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
}
