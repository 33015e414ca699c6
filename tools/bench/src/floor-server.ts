// The stack floor as its own process, started by the suite like the services and the ceiling
// (UPSTREAM_URL: the GraphQL service's /graphql; GRAPHQL_JIT_AFTER as the service has it). See stack-floor.ts.
import { buildStackFloor } from './stack-floor';

async function main(): Promise<void> {
  const upstreamUrl = process.env.UPSTREAM_URL;
  if (!upstreamUrl) throw new Error('UPSTREAM_URL (the GraphQL service /graphql URL) is required');
  const app = await buildStackFloor({ upstreamUrl, jitAfter: Number(process.env.GRAPHQL_JIT_AFTER ?? 1) });
  await app.listen({ port: Number(process.env.PORT ?? 4098), host: process.env.HOST ?? '127.0.0.1' });
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
