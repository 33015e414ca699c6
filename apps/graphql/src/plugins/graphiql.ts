// GraphiQL at /graphiql that works with no internet access: the page and its scripts and styles are all
// served by this app from the npm packages (Mercurius' built-in page fetches them from a CDN).
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

interface Asset {
  file: string;
  contentType: string;
}

function packageDir(name: string): string {
  // Resolving package.json avoids ERR_PACKAGE_PATH_NOT_EXPORTED for files outside a package's exports map.
  return path.dirname(require.resolve(`${name}/package.json`));
}

const ASSETS: Record<string, Asset> = {
  'react.production.min.js': {
    file: path.join(packageDir('react'), 'umd/react.production.min.js'),
    contentType: 'text/javascript; charset=utf-8',
  },
  'react-dom.production.min.js': {
    file: path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
    contentType: 'text/javascript; charset=utf-8',
  },
  'graphiql.min.js': {
    file: path.join(packageDir('graphiql'), 'graphiql.min.js'),
    contentType: 'text/javascript; charset=utf-8',
  },
  'graphiql.min.css': {
    file: path.join(packageDir('graphiql'), 'graphiql.min.css'),
    contentType: 'text/css; charset=utf-8',
  },
};

const DEFAULT_QUERY = `# AS Rank v2.1. Open the Docs panel (book icon) to browse every type and root field.
{
  asns(first: 5, sort: "rank") {
    totalCount
    edges {
      node {
        asn
        asnName
        rank
        organization { orgId orgName rank }
        cone { numberAsns numberPrefixes numberAddresses }
      }
    }
  }
}
`;

export function graphiqlPage(graphqlPath: string, assetsPath: string): string {
  const settings = JSON.stringify({ url: graphqlPath, defaultQuery: DEFAULT_QUERY }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AS Rank GraphiQL</title>
<link rel="stylesheet" href="${assetsPath}/graphiql.min.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${assetsPath}/react.production.min.js"></script>
<script src="${assetsPath}/react-dom.production.min.js"></script>
<script src="${assetsPath}/graphiql.min.js"></script>
<script>
  const settings = ${settings};
  const fetcher = GraphiQL.createFetcher({ url: new URL(settings.url, window.location.href).href });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher, defaultQuery: settings.defaultQuery }),
  );
</script>
</body>
</html>
`;
}

export interface GraphiqlPluginOptions {
  /** The base path the app is served under ('' or e.g. '/v2'), for the page's absolute URLs. */
  basePath: string;
}

export async function graphiqlPlugin(
  app: FastifyInstance,
  { basePath }: GraphiqlPluginOptions,
): Promise<void> {
  // A missing or unreadable file fails the start, not a page view; the ~4 MB of files are read on their first
  // request (once), since reading them at start-up was ~90 ms of a start that mostly serves no browser.
  for (const asset of Object.values(ASSETS)) fs.accessSync(asset.file, fs.constants.R_OK);
  const bodies = new Map<string, Promise<Buffer>>();
  const bodyOf = (name: string, asset: Asset): Promise<Buffer> => {
    let body = bodies.get(name);
    if (!body) {
      body = fs.promises.readFile(asset.file);
      // A failed read is retried by the next request instead of being remembered.
      body.catch(() => bodies.delete(name));
      bodies.set(name, body);
    }
    return body;
  };
  const page = graphiqlPage(`${basePath}/graphql`, `${basePath}/graphiql/assets`);

  app.get('/graphiql', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get<{ Params: { name: string } }>('/graphiql/assets/:name', async (request, reply) => {
    const name = request.params.name;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset)
      return reply.code(404).type('text/plain; charset=utf-8').send(`no such GraphiQL asset: ${name}`);
    // The files are versioned by the lockfile; a day of caching keeps reloads cheap.
    return reply
      .type(asset.contentType)
      .header('cache-control', 'public, max-age=86400')
      .send(await bodyOf(name, asset));
  });
}
