// A private PostgreSQL primary and a streaming read replica of it (pg_basebackup -R), both real servers on
// loopback ports, run as the `postgres` user (PostgreSQL refuses to run as root) from data directories
// under a temp dir; stopped (immediate mode) and deleted afterwards.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';
import { makeTempDir } from './services';

const run = promisify(execFile);

/** The PostgreSQL binaries directory: PG_BIN, else the newest /usr/lib/postgresql/<v>/bin; null if absent. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env['PG_BIN'];
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((version) => fs.existsSync(path.join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? null : path.join(root, newest, 'bin');
}

/** Why the cluster test cannot run here, or null when it can. */
export function postgresClusterUnavailable(): string | null {
  if (postgresBinDir() === null)
    return 'PostgreSQL binaries not found (set PG_BIN or apt-get install postgresql)';
  if (!fs.existsSync('/usr/sbin/runuser') && !fs.existsSync('/sbin/runuser'))
    return 'runuser is not available';
  if (process.getuid?.() !== 0) return 'the test must run as root to start PostgreSQL as the postgres user';
  return null;
}

export interface PostgresServer {
  port: number;
  dataDir: string;
  /** postgres://postgres@127.0.0.1:PORT/<database> */
  url(database?: string): string;
}

export interface PrimaryWithReplica {
  primary: PostgresServer;
  replica: PostgresServer;
  /** Resolves when the replica has replayed everything the primary has written so far. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function asPostgres(binDir: string, tool: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(
      'runuser',
      ['-u', 'postgres', '--', path.join(binDir, tool), ...args],
      { timeout: 120_000 },
    );
    return stdout + stderr;
  } catch (error) {
    const detail = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${tool} failed: ${detail.message}\n${detail.stdout ?? ''}${detail.stderr ?? ''}`);
  }
}

function server(port: number, dataDir: string): PostgresServer {
  return {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
  };
}

export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  const binDir = postgresBinDir();
  if (binDir === null) throw new Error('PostgreSQL binaries not found');
  const root = makeTempDir('pg');
  fs.chmodSync(root, 0o755);
  await run('chown', ['postgres:postgres', root]);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  const started: string[] = [];
  const stop = async () => {
    for (const dataDir of started.reverse()) {
      await asPostgres(binDir, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']).catch(() => undefined);
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  // A crashed test must not leave servers running.
  const onExit = () => {
    for (const dataDir of started) {
      try {
        execFileSync(
          'runuser',
          ['-u', 'postgres', '--', path.join(binDir, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', 'stop'],
          {
            stdio: 'ignore',
          },
        );
      } catch {
        // already stopped
      }
    }
  };
  process.once('exit', onExit);
  const options = (port: number) => `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off`;
  try {
    await asPostgres(binDir, 'initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await asPostgres(binDir, 'pg_ctl', [
      '-D',
      primaryDir,
      '-w',
      '-l',
      path.join(root, 'primary.log'),
      '-o',
      `${options(primaryPort)} -c wal_level=replica -c max_wal_senders=5`,
      'start',
    ]);
    started.push(primaryDir);
    // -R writes standby.signal and primary_conninfo: the copy starts as a streaming hot standby.
    await asPostgres(binDir, 'pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    await asPostgres(binDir, 'pg_ctl', [
      '-D',
      replicaDir,
      '-w',
      '-l',
      path.join(root, 'replica.log'),
      '-o',
      `${options(replicaPort)} -c hot_standby=on`,
      'start',
    ]);
    started.push(replicaDir);
  } catch (error) {
    await stop();
    throw error;
  }
  const primary = server(primaryPort, primaryDir);
  const replica = server(replicaPort, replicaDir);
  return {
    primary,
    replica,
    async waitForReplay(timeoutMs = 30_000) {
      const psql = path.join(binDir, 'psql');
      const query = async (port: number, text: string) =>
        (
          await run(psql, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-Atc', text], {
            timeout: 10_000,
          })
        ).stdout.trim();
      const target = await query(primaryPort, 'select pg_current_wal_lsn()');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const caughtUp = await query(replicaPort, `select pg_last_wal_replay_lsn() >= '${target}'::pg_lsn`);
        if (caughtUp === 't') return;
        if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${target} in time`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: async () => {
      process.removeListener('exit', onExit);
      await stop();
    },
  };
}
