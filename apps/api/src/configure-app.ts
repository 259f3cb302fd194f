import type { NestExpressApplication } from '@nestjs/platform-express';
import { text } from 'express';
import { COLLECTION_BODY, collectRoute, CollectService, serveCollectFirst } from '@app/collection';
import { configureHttpApp, EnvironmentVariables } from '@app/core';
import { EVENT_BATCH_BODY } from '@app/metrics';

/** core's HTTP setup, told which of this app's routes take a larger body (core knows no route). */
export function configureApp(app: NestExpressApplication, env: EnvironmentVariables): void {
  configureHttpApp(app, env, [EVENT_BATCH_BODY, COLLECTION_BODY]);
  // A page's beacon sends text/plain (a simple request: no preflight); the route parses the JSON in it.
  app.use(
    text({
      limit: COLLECTION_BODY.limit,
      type: (req) =>
        COLLECTION_BODY.path.test(req.url ?? '') &&
        /^text\/plain/i.test(String(req.headers['content-type'] ?? '')),
    }),
  );
  // After the body parsers, before Nest's router: a page's beacons skip what a public route does not use.
  app.use(collectRoute(app.get(CollectService)));
  // Ahead of Express: the usual beacon is answered without it (the errors still are by it).
  serveCollectFirst(app);
}
