import { Controller, Get } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { AppModule } from '../apps/api/src/app.module';
import { validateEnv } from '@app/core';
import { configureApp } from '../apps/api/src/configure-app';
import { startTestApp, TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { httpClient } from './support/http-client';
import { expressRoutes, routeCount, walkRoutes } from './support/route-walk';

// The Swagger UI and document are served by the app itself, outside any controller.
const DOCS = /^(GET|HEAD) \/docs/;

describe('Deny by default: every route declares its access', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('finds the routes of the app', () => {
    const routes = walkRoutes(t.app).map((r) => `${r.controller}.${r.handler}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'WorkspacesController.list',
        'ContactsController.list',
        'ContactsController.create',
        'ContactsController.get',
        'ContactsController.updateValue',
        'FunnelsController.get',
      ]),
    );
  });

  it('has no handler without @RequirePermissions, @Public() or @BearerAuth()', () => {
    const undeclared = walkRoutes(t.app).filter((r) => !r.access);
    expect(undeclared.map((r) => `${r.controller}.${r.handler}`)).toEqual([]);
  });

  it('has no route outside a controller, where the guard would not see it', () => {
    const outside = expressRoutes(t.app).filter((route) => !DOCS.test(route));
    expect(outside).toHaveLength(routeCount(t.app));
  });

  describe('with a controller that declares nothing', () => {
    @Controller('forgotten')
    class ForgottenController {
      @Get()
      secret() {
        return { leaked: true };
      }
    }

    let app: NestExpressApplication;
    let db: Awaited<ReturnType<typeof createTestDatabase>>;

    beforeAll(async () => {
      db = await createTestDatabase();
      const env = validateEnv({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'error' });
      const moduleRef = await Test.createTestingModule({
        imports: [AppModule.forRoot({ databaseUrl: db.url, env })],
        controllers: [ForgottenController],
      }).compile();
      app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: ['error'] });
      configureApp(app, env);
      await app.listen(0, '127.0.0.1');
    });
    afterAll(async () => {
      await app.close();
      await db.drop();
    });

    it('reports it', () => {
      expect(walkRoutes(app).filter((r) => !r.access)).toEqual([
        { controller: 'ForgottenController', handler: 'secret', access: undefined },
      ]);
    });

    it('refuses it at run time', async () => {
      const { port } = app.getHttpServer().address() as { port: number };
      const res = await httpClient(`http://127.0.0.1:${port}`).get('/forgotten');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This route is not available', status: 403 });
    });
  });
});
