// Scaling out on PostgreSQL: the test starts its own primary and a streaming read replica of it
// (pg_basebackup -R), runs one GraphQL instance on each behind nginx (deploy/nginx.conf, both in one
// upstream), loads a new month on the primary only, and checks that both instances, and nginx whichever
// instance it picks, answer with the new month.
import fs from 'node:fs';
import { sql } from 'kysely';
import { readManifest, ingestMonth } from '@asrank/cli';
import { migrateToLatest, openDatabase } from '@asrank/db';
import {
  freePort,
  makeTempDir,
  nginxBinary,
  postgresClusterUnavailable,
  startGraphqlProcess,
  startNginx,
  startPrimaryWithReplica,
  waitUntil,
  writeSummary,
  type PrimaryWithReplica,
  type RunningNginx,
  type ServiceProcess,
} from '../src';

const unavailable = postgresClusterUnavailable() ?? (nginxBinary() ? null : 'nginx is not installed');
if (unavailable) console.warn(`SKIP replica.test.ts: ${unavailable}`);
const describeCluster = unavailable ? describe.skip : describe;

interface DatasetsAnswer {
  data: { datasets: { totalCount: number; edges: { node: { date: string } }[] } };
}

async function loadedDates(baseUrl: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ datasets(sort: "date") { totalCount edges { node { date } } } }' }),
  });
  const body = (await response.json()) as DatasetsAnswer;
  return body.data.datasets.edges.map((edge) => edge.node.date);
}

describeCluster('GraphQL on a PostgreSQL primary and on its streaming replica, behind nginx', () => {
  let cluster: PrimaryWithReplica;
  const instances: ServiceProcess[] = [];
  let proxy: RunningNginx | undefined;
  let workDir: string;

  beforeAll(async () => {
    cluster = await startPrimaryWithReplica();
    workDir = makeTempDir('replica');
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    for (const instance of instances) await instance.process.stop();
    await cluster?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('a month loaded on the primary is answered by both instances and through nginx', async () => {
    const months = readManifest().sort((a, b) => a.date.localeCompare(b.date));
    const [first, second] = months;
    if (!first || !second) throw new Error('the committed sample needs at least two months');

    const admin = openDatabase(cluster.primary.url(), { poolSize: 1 });
    await sql`create database asrank`.execute(admin.db);
    await admin.close();
    const loader = openDatabase(cluster.primary.url('asrank'), { poolSize: 2 });
    try {
      await migrateToLatest(loader.db, loader.dialect);
      await ingestMonth(loader, first.options);
      await cluster.waitForReplay();

      const onPrimary = await startGraphqlProcess({ databaseUrl: cluster.primary.url('asrank') });
      instances.push(onPrimary);
      const onReplica = await startGraphqlProcess({ databaseUrl: cluster.replica.url('asrank') });
      instances.push(onReplica);
      // The second instance really reads a standby.
      const replicaCheck = openDatabase(cluster.replica.url('asrank'), { poolSize: 1 });
      const recovery = await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(
        replicaCheck.db,
      );
      await replicaCheck.close();
      expect(recovery.rows[0]?.standby).toBe(true);

      proxy = await startNginx(nginxBinary() as string, {
        listenPort: await freePort(),
        graphqlServers: [`127.0.0.1:${onPrimary.port}`, `127.0.0.1:${onReplica.port}`],
        restServers: ['127.0.0.1:9'],
        workDir,
      });
      expect(await loadedDates(onPrimary.baseUrl)).toEqual([first.date]);
      expect(await loadedDates(onReplica.baseUrl)).toEqual([first.date]);

      await ingestMonth(loader, second.options);
      const expected = [first.date, second.date];
      for (const instance of [onPrimary, onReplica]) {
        await waitUntil(
          `${instance.baseUrl} to answer the new month`,
          async () => JSON.stringify(await loadedDates(instance.baseUrl)) === JSON.stringify(expected),
        );
      }
      // Round robin: consecutive requests reach both instances; every one sees the new month.
      const throughProxy = await Promise.all(Array.from({ length: 10 }, () => loadedDates(proxy!.baseUrl)));
      for (const dates of throughProxy) expect(dates).toEqual(expected);
      const latest = await fetch(`${proxy.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ asns(first: 1) { edges { node { date } } } }' }),
      });
      expect(
        ((await latest.json()) as { data: { asns: { edges: { node: { date: string } }[] } } }).data.asns
          .edges[0]?.node.date,
      ).toBe(second.date);
      writeSummary('replica', { months: expected, instances: 2, proxiedRequests: throughProxy.length });
    } finally {
      await loader.close();
    }
  }, 180_000);
});
