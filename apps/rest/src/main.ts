// Entry point of the REST service: validate the configuration, listen, and on SIGTERM/SIGINT stop
// accepting connections, let in-flight requests finish and close the GraphQL connection pool. With WORKERS > 1
// this process only supervises that many service processes on the same port (service-kit's workers.ts).
import { closeGracefully, isServiceWorker, onStopRequest, superviseWorkers } from '@asrank/service-kit';
import { buildRestApp } from './app';
import { readConfig } from './config';

async function main(): Promise<void> {
  const config = readConfig();
  if (config.workers > 1 && !isServiceWorker()) {
    superviseWorkers({
      workers: config.workers,
      name: 'asrank rest',
      stopTimeoutMs: config.shutdownTimeoutMs + 2_000,
    });
    return;
  }
  const app = await buildRestApp(config);
  let closing = false;
  const shutdown = (signal: NodeJS.Signals | 'stop request') => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // In-flight requests get SHUTDOWN_TIMEOUT_MS to finish; a stuck one must not keep the process alive.
    setTimeout(() => {
      app.log.error(`in-flight requests still running after ${config.shutdownTimeoutMs} ms: exiting anyway`);
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    closeGracefully(app).then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  if (isServiceWorker()) onStopRequest(() => shutdown('stop request'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    `REST guide: http://${config.host}:${config.port}${config.basePath}/restful/doc (GraphQL at ${config.graphqlUrl})`,
  );
}

main().catch((error: unknown) => {
  // One line, as the GraphQL service's: a port in use or a host that does not resolve is the operator's to fix, and
  // its stack says nothing more (EADDRINUSE, ENOTFOUND and the address are in the message).
  const message = error instanceof Error ? error.message : String(error);
  console.error(`asrank REST service failed to start: ${message}`);
  process.exit(1);
});
