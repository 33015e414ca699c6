// The GraphQL service with its data path only (buildGraphqlApp's `dataPathOnly`: the database, Mercurius over the
// schema and the routes; no request ids, logging, metrics, load shedding, guards, ETags or large-answer hooks), as
// its own process, started by the suite beside the service for W1 so a run shows what those features cost a request.
// It reads the service's configuration from the same environment. It runs from the package's modules, not the
// service's bundle: in alternated runs the two answered within each other's spread (docs/performance.md,
// thirty-fifth round).
import { buildGraphqlApp, loadConfig } from '@asrank/graphql';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await buildGraphqlApp(config, { dataPathOnly: true });
  await app.listen({ port: config.port, host: config.host });
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
