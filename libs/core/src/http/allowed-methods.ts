import { METHODS } from 'node:http';
import type { Request } from 'express';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the app serves on the request's path (empty when the path itself is unknown), read
 * from the router so a new route needs no list kept beside it. GET implies HEAD, as Express serves it.
 */
export function allowedMethods(request: Request): string[] {
  const app = request.app as unknown as {
    router?: { stack: RouteLayer[] };
    _router?: { stack: RouteLayer[] };
  };
  const stack = (app.router ?? app._router)?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.match(request.path)) continue;
    const served = Object.entries(layer.route.methods).filter(([, on]) => on);
    // A layer on every method is a catch-all (a middleware or fallback mounted per route), not a resource.
    if (layer.route.methods._all || served.length >= METHODS.length) continue;
    for (const [method] of served) {
      methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
