import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { BEARER_AUTH, IS_PUBLIC, REQUIRED_PERMISSIONS } from '@app/auth';

export interface RouteHandler {
  controller: string;
  handler: string;
  /** How the route is protected, or undefined when it declares nothing. */
  access?: 'permissions' | 'public' | 'bearer';
}

/** Every controller handler of the app, with the access it declares (method first, then class). */
export function walkRoutes(app: INestApplication): RouteHandler[] {
  const scanner = new MetadataScanner();
  const routes: RouteHandler[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      for (const name of scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as object;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const declared = (key: string) =>
          Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
        const permissions = declared(REQUIRED_PERMISSIONS) as unknown[] | undefined;
        const access = permissions?.length
          ? 'permissions'
          : declared(IS_PUBLIC)
            ? 'public'
            : declared(BEARER_AUTH)
              ? 'bearer'
              : undefined;
        routes.push({ controller: controller.name, handler: name, access });
      }
    }
  }
  return routes;
}

/** How many routes each handler registers (one per path, several with an array of paths). */
export function routeCount(app: INestApplication): number {
  let count = 0;
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      for (const name of new MetadataScanner().getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (path === undefined || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const classPaths = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '/');
        count += ([] as string[]).concat(path).length * classPaths.length;
      }
    }
  }
  return count;
}

/**
 * The single-method routes Express knows, as "METHOD path". Routes for every method are
 * middleware mounted with `forRoutes({ method: RequestMethod.ALL })`, which answer nothing alone.
 */
export function expressRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  return express.router.stack
    .map((layer) => layer.route)
    .filter((route) => route && Object.keys(route.methods).length === 1)
    .map((route) => `${Object.keys(route!.methods)[0].toUpperCase()} ${route!.path}`);
}
