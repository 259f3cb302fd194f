import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp } from '../support/app';
import { BearerProxy, startBearerProxy } from '../support/bearer-proxy';
import { createTenant } from '../support/factories';
import { nodeAtLeast } from '../support/node-runtime';
import { ROOT } from '../support/processes';
import { startTokenIssuer, TestTokenIssuer } from '../support/token-issuer';

jest.setTimeout(180_000);

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';
const CONFORMANCE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the real
 * app. The suite cannot run OAuth, so a loopback pass-through adds a valid bearer token and changes
 * nothing else. Scenarios for features a tools-only, stateless server does not offer (resources,
 * prompts, logging, completion, sampling, elicitation, SSE streams, the suite's own test tools) do
 * not apply; docs/MCP-AND-OAUTH.md "Conformance" lists them.
 */
describe('MCP conformance suite', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let proxy: BearerProxy;
  let outputDir: string;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    t = await startTestApp({
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'c',
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: NAMESPACE,
    });
    const tenant = await createTenant(t.app);
    const token = await issuer.sign({
      [`${NAMESPACE}/user_metadata`]: { companyId: tenant.companyId, subscriptionId: 'sub_1' },
    });
    proxy = await startBearerProxy(t.baseUrl, token);
    outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    await issuer?.close();
    if (outputDir) await rm(outputDir, { recursive: true, force: true });
  });

  const run = (scenario: string) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        nodeAtLeast(22),
        [CONFORMANCE, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', outputDir],
        { cwd: ROOT, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });

  async function checksOf(scenario: string): Promise<Check[]> {
    const found: Check[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.name === 'checks.json' && path.includes(scenario))
          found.push(...(JSON.parse(await readFile(path, 'utf8')) as Check[]));
      }
    };
    await walk(outputDir);
    return found;
  }

  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const { code, output } = await run(scenario);
    const checks = await checksOf(scenario);
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== 'SUCCESS')).toEqual([]);
    expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
  });
});
