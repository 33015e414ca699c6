// The deployment of docs/deploy.md on one machine, as the proxy tests need it: the sample in a fresh SQLite file,
// both services as processes, and nginx in front with the committed configuration.
import fs from 'node:fs';
import path from 'node:path';
import { startNginx, type RunningNginx } from './nginx';
import { freePort } from './processes';
import {
  loadSampleSqlite,
  makeTempDir,
  startGraphqlProcess,
  startRestProcess,
  type ServiceProcess,
} from './services';

export interface ProxiedStack {
  workDir: string;
  /** Months of the loaded sample. */
  dates: string[];
  graphql: ServiceProcess;
  rest: ServiceProcess;
  proxy: RunningNginx;
  /** Stops nginx and both services and removes the work directory. */
  stop(): Promise<void>;
}

export async function startProxiedStack(
  nginxBinary: string,
  options: { name: string; serviceEnv?: Record<string, string> },
): Promise<ProxiedStack> {
  const workDir = makeTempDir(options.name);
  const started: { stop(): Promise<unknown> }[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const databaseFile = path.join(workDir, 'asrank.db');
    const dates = await loadSampleSqlite(databaseFile);
    const graphql = await startGraphqlProcess({ databaseUrl: databaseFile, env: options.serviceEnv });
    started.push(graphql.process);
    const rest = await startRestProcess({
      graphqlUrl: `${graphql.baseUrl}/graphql`,
      env: options.serviceEnv,
    });
    started.push(rest.process);
    const proxy = await startNginx(nginxBinary, {
      listenPort: await freePort(),
      graphqlServers: [`127.0.0.1:${graphql.port}`],
      restServers: [`127.0.0.1:${rest.port}`],
      workDir,
    });
    started.push(proxy);
    return { workDir, dates, graphql, rest, proxy, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
