// The REST guide in headless Debian Chromium, offline: /v2/restful/doc renders Swagger UI from this service's
// own assets (a request to any other host fails the test) and lists the routes from the OpenAPI document.
// A screenshot is saved under test-output/ (git-ignored). Skips when no Chromium binary exists.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { buildRestApp } from '../src/app';
import { UNREACHABLE_GRAPHQL_URL, listenOnEphemeralPort } from './http';

const chromiumPath = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
if (!hasChromium)
  console.warn(
    `SKIP REST guide browser test: no Chromium at ${chromiumPath} (set CHROMIUM_PATH; CI installs Debian's chromium).`,
  );

const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

(hasChromium ? describe : describe.skip)('REST guide in Chromium', () => {
  let app: FastifyInstance;
  let base: string;
  let context: BrowserContext;
  let userDataDir: string;

  beforeAll(async () => {
    app = await buildRestApp({ basePath: '/v2', graphqlUrl: UNREACHABLE_GRAPHQL_URL, logLevel: 'silent' });
    base = await listenOnEphemeralPort(app);
    userDataDir = mkdtempSync(path.join(os.tmpdir(), 'asrank-rest-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: launchArgs,
    });
  }, 60000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('renders every route from local assets only', async () => {
    const serviceHost = new URL(base).host;
    const foreignRequests: string[] = [];
    const pageErrors: string[] = [];
    await context.route('**', async (route) => {
      const url = new URL(route.request().url());
      if (url.host === serviceHost || url.protocol === 'data:' || url.protocol === 'blob:')
        return route.continue();
      foreignRequests.push(url.href);
      return route.abort();
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${base}/v2/restful/doc`);
    await page.locator('.opblock-summary-path').first().waitFor({ timeout: 20000 });
    const paths = (await page.locator('.opblock-summary-path').allTextContents()).map((text) =>
      text.replace(/\u200b/g, '').trim(),
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v2/restful/asns',
        '/v2/restful/asns/{asn}',
        '/v2/restful/asns/name/{name}',
        '/v2/restful/asnLinks',
        '/v2/restful/asnLinks/{asn0}',
        '/v2/restful/organizations',
        '/v2/restful/organizations/{organization}',
        '/v2/restful/datasets',
        '/v2/asns/{asn}',
        '/v2/orgs/{orgId}',
      ]),
    );
    await expect(page.locator('.info .title').textContent()).resolves.toContain(
      'AS Rank v2.1 REST interface',
    );

    const outputDir = path.resolve(__dirname, '..', 'test-output');
    mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: path.join(outputDir, 'rest-guide.png'), fullPage: true });

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
