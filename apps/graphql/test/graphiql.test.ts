// GraphiQL end to end in headless Debian Chromium, offline: the page, its scripts and styles all come from
// this service (any request to another host fails the test), a query runs from the page, and the docs
// explorer shows asnConesStream. A screenshot is saved under test-output/ (git-ignored).
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import {
  makeTempDir,
  sqliteWithSample,
  startService,
  type LoadedDatabase,
  type RunningService,
} from './helpers';

const chromiumPath = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
const hasChromium = fs.existsSync(chromiumPath);
if (!hasChromium)
  console.warn(
    `SKIP GraphiQL browser test: no Chromium at ${chromiumPath} (set CHROMIUM_PATH; CI installs Debian's chromium).`,
  );

/** The page's DOM as seen from page.evaluate (this package is compiled without the DOM library). */
interface PageDocument {
  querySelector(selector: string): unknown;
}
const outputDir = path.resolve(__dirname, '..', 'test-output');
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

(hasChromium ? describe : describe.skip)('GraphiQL in Chromium', () => {
  let store: LoadedDatabase;
  let service: RunningService;
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await sqliteWithSample();
    service = await startService(store.url, { BASE_PATH: '/v2' });
    userDataDir = makeTempDir('chromium-profile');
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: launchArgs,
    });
    const serviceHost = new URL(service.baseUrl).host;
    await context.route('**', async (route) => {
      const url = new URL(route.request().url());
      if (url.host === serviceHost || url.protocol === 'data:' || url.protocol === 'blob:')
        return route.continue();
      foreignRequests.push(url.href);
      return route.abort();
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await service?.close();
    await store?.dispose();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  it('runs a query from the page and shows the answer from the database', async () => {
    const row = await store.reader.db
      .selectFrom('asns')
      .select(['asn', 'asn_name', 'rank'])
      .where('date', '=', [...store.dates].sort().at(-1)!)
      .orderBy('degree_total', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    await page.goto(`${service.baseUrl}/graphiql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor({ timeout: 30_000 });
    const query = `{ asn(asn: "${row.asn}") { asn asnName rank } }`;
    await page.evaluate((text) => {
      const editor = (globalThis as unknown as { document: PageDocument }).document.querySelector(
        '.graphiql-query-editor .CodeMirror',
      ) as unknown as { CodeMirror: { setValue(value: string): void } };
      editor.CodeMirror.setValue(text);
    }, query);
    await page.locator('.graphiql-execute-button').click();
    const resultText = async () =>
      page.evaluate(() => {
        const result = (globalThis as unknown as { document: PageDocument }).document.querySelector(
          '.result-window .CodeMirror',
        ) as unknown as { CodeMirror: { getValue(): string } } | null;
        return result ? result.CodeMirror.getValue() : '';
      });
    let text = '';
    for (let attempt = 0; attempt < 100 && !text.includes('"data"'); attempt += 1) {
      await page.waitForTimeout(100);
      text = await resultText();
    }
    const answer = JSON.parse(text) as {
      data: { asn: { asn: string; asnName: string; rank: number | null } };
    };
    expect(answer.data.asn).toEqual({
      asn: String(row.asn),
      asnName: row.asn_name,
      rank: row.rank == null ? null : Number(row.rank),
    });
  });

  it('shows asnCone and asnConesStream in the documentation explorer', async () => {
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const explorer = page.locator('.graphiql-doc-explorer');
    await explorer.getByText('Query', { exact: true }).first().click();
    const streamEntry = explorer.getByText('asnConesStream', { exact: true }).first();
    await streamEntry.waitFor({ state: 'visible', timeout: 15_000 });
    await streamEntry.scrollIntoViewIfNeeded();
    await expect(explorer.getByText('asnCone', { exact: true }).count()).resolves.toBeGreaterThan(0);
    fs.mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: path.join(outputDir, 'graphiql.png'), fullPage: true });
  });

  it('loaded everything from the service itself: no request left for another host', () => {
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

// Without a browser: the assets the page loads are the packages' own files, read on first request.
describe('GraphiQL assets', () => {
  let store: LoadedDatabase;
  let service: RunningService;

  beforeAll(async () => {
    store = await sqliteWithSample();
    service = await startService(store.url);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await store?.dispose();
  });

  it('serves each script and style byte for byte from its package, the same on a second request', async () => {
    const graphiqlDir = path.dirname(require.resolve('graphiql/package.json'));
    const reactDir = path.dirname(require.resolve('react/package.json'));
    const expected: [string, string, string][] = [
      ['graphiql.min.js', path.join(graphiqlDir, 'graphiql.min.js'), 'text/javascript; charset=utf-8'],
      ['graphiql.min.css', path.join(graphiqlDir, 'graphiql.min.css'), 'text/css; charset=utf-8'],
      [
        'react.production.min.js',
        path.join(reactDir, 'umd/react.production.min.js'),
        'text/javascript; charset=utf-8',
      ],
    ];
    for (const [name, file, contentType] of expected) {
      const onDisk = fs.readFileSync(file);
      for (let request = 0; request < 2; request += 1) {
        const response = await fetch(`${service.baseUrl}/graphiql/assets/${name}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe(contentType);
        expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
        expect(Buffer.from(await response.arrayBuffer()).equals(onDisk)).toBe(true);
      }
    }
  });

  it('answers 404 naming the asset for a name not in its list, inherited object keys included', async () => {
    for (const name of ['nope.js', 'constructor', '__proto__', 'toString']) {
      const response = await fetch(`${service.baseUrl}/graphiql/assets/${name}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe(`no such GraphiQL asset: ${name}`);
    }
  });
});
