// Runs Debian's nginx with deploy/nginx.conf itself, rewritten only where a test must differ from a
// deployment: the listen port, the upstream servers (ephemeral ports, possibly several) and the temp/pid
// paths (a private directory), so the routing under test is exactly the committed one.
import fs from 'node:fs';
import path from 'node:path';
import { nginxConfigFile } from './paths';
import { findExecutable, startProcess, waitUntil, type ManagedProcess } from './processes';

export function nginxBinary(): string | null {
  return findExecutable([process.env['NGINX_BIN'], '/usr/sbin/nginx', '/usr/bin/nginx']);
}

export interface NginxLayout {
  listenPort: number;
  /** host:port of each GraphQL instance. */
  graphqlServers: string[];
  /** host:port of each REST instance. */
  restServers: string[];
  /** Private directory for the pid file, temp files and the rendered config. */
  workDir: string;
}

function replaceUpstream(config: string, name: string, servers: readonly string[]): string {
  const pattern = new RegExp(`(upstream ${name} \\{)([^}]*)(\\})`);
  if (!pattern.test(config)) throw new Error(`deploy/nginx.conf has no upstream ${name}`);
  return config.replace(pattern, (_all, open: string, body: string, close: string) => {
    const rest = body.replace(/^\s*server [^;]+;\s*$/gm, '').trimEnd();
    const lines = servers.map((server) => `    server ${server};`).join('\n');
    return `${open}\n${lines}${rest}\n  ${close}`;
  });
}

export function renderNginxConfig(layout: NginxLayout): string {
  let config = fs.readFileSync(nginxConfigFile, 'utf8');
  config = replaceUpstream(config, 'asrank_graphql', layout.graphqlServers);
  config = replaceUpstream(config, 'asrank_rest', layout.restServers);
  config = config.replace(/listen 127\.0\.0\.1:\d+;/, `listen 127.0.0.1:${layout.listenPort};`);
  config = config.replaceAll('/tmp/asrank-nginx', path.join(layout.workDir, 'nginx'));
  return config;
}

export interface RunningNginx {
  process: ManagedProcess;
  baseUrl: string;
  configFile: string;
  stop(): Promise<void>;
}

export async function startNginx(binary: string, layout: NginxLayout): Promise<RunningNginx> {
  // nginx started as root runs its workers as `nobody`, which must be able to write the temp paths.
  fs.chmodSync(layout.workDir, 0o777);
  const configFile = path.join(layout.workDir, 'nginx.conf');
  fs.writeFileSync(configFile, renderNginxConfig(layout));
  const child = startProcess('nginx', binary, ['-p', layout.workDir, '-c', configFile, '-g', 'daemon off;']);
  const origin = `http://127.0.0.1:${layout.listenPort}`;
  await waitUntil(
    `nginx on port ${layout.listenPort}`,
    async () => {
      const response = await fetch(`${origin}/nowhere`);
      await response.text();
      return response.status === 404;
    },
    { process: child },
  );
  return {
    process: child,
    baseUrl: `${origin}/v2`,
    configFile,
    stop: async () => {
      // SIGQUIT: graceful stop (workers finish their requests).
      await child.stop('SIGQUIT', 5000);
    },
  };
}
