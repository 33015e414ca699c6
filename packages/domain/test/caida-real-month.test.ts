// Checks cones and degrees against CAIDA's own AS Rank run on real data, read in place from the shared folder
// (never copied into the repo). Skips with a message when the folder is absent.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import unbzip2 from 'unbzip2-stream';
import {
  AsGraph,
  computeCustomerCones,
  computeDegrees,
  type RelationshipCode,
  type RelationshipLink,
} from '../src';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const caidaDir = process.env.ASRANK_SHARED_DATA ?? path.resolve(repoRoot, '..', 'shared', 'data', 'caida');

/** Streams a bzip2-compressed serial-1 as-rel file line by line into links. */
async function readAsRel(file: string): Promise<RelationshipLink[]> {
  const links: RelationshipLink[] = [];
  const lines = createInterface({ input: createReadStream(file).pipe(unbzip2()), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '' || line.startsWith('#')) continue;
    const [asn0, asn1, code] = line.split('|');
    links.push({ asn0: Number(asn0), asn1: Number(asn1), code: Number(code) as RelationshipCode });
  }
  return links;
}

/** asn -> fields of CAIDA's `YYYYMMDD-asn_count.txt` (asn|asnes|prefixes|addresses|asn_degree|asn_transit_degree). */
function readAsnCounts(file: string): Map<number, number[]> {
  const rows = new Map<number, number[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split('|').map(Number);
    rows.set(fields[0] as number, fields);
  }
  return rows;
}

const months = [
  { date: '20171201', expectedAsns: 60152, cone3356: 49071 },
  { date: '20180601', expectedAsns: 61992, cone3356: null },
];

for (const month of months) {
  const asRelFile = path.join(caidaDir, 'as-rel', `${month.date}.as-rel.txt.bz2`);
  const countFile = path.join(caidaDir, 'asrank', month.date, `${month.date}-asn_count.txt`);
  const present = existsSync(asRelFile) && existsSync(countFile);
  if (!present) {
    console.warn(
      `Skipping the CAIDA ${month.date} checks: ${asRelFile} or ${countFile} not found (set ASRANK_SHARED_DATA to the caida folder).`,
    );
  }

  (present ? describe : describe.skip)(
    `CAIDA ${month.date}: cones and degrees from the real as-rel file`,
    () => {
      let graph: AsGraph;
      let cones: Map<number, Uint32Array>;
      let expected: Map<number, number[]>;

      beforeAll(async () => {
        graph = AsGraph.fromLinks(await readAsRel(asRelFile));
        cones = computeCustomerCones(graph);
        expected = readAsnCounts(countFile);
      });

      it('gives every AS the global degree CAIDA published (asn_degree), 0 for ASes without links', () => {
        expect(expected.size).toBe(month.expectedAsns);
        const degrees = computeDegrees(graph, () => undefined);
        const mismatches: string[] = [];
        for (const [asn, fields] of expected) {
          const total = degrees.get(asn)?.total ?? 0;
          if (total !== fields[4]) mismatches.push(`AS${asn}: ${total} != ${fields[4]}`);
        }
        expect(mismatches.slice(0, 10)).toEqual([]);
        // Plain checks in the loops (one expect per AS would cost seconds), one assertion on the outcome.
        const inconsistent: string[] = [];
        for (const [asn, degree] of degrees) {
          const byRelationship = degree.provider + degree.customer + degree.peer + degree.sibling;
          if (degree.total > byRelationship || degree.transit > degree.total)
            inconsistent.push(`AS${asn}: ${JSON.stringify(degree)}`);
        }
        expect(inconsistent.slice(0, 10)).toEqual([]);
      });

      it('computes a cone for every AS that contains the AS itself, sorted, never smaller than its customers', () => {
        expect(cones.size).toBe(graph.size);
        const problems: string[] = [];
        for (const [asn, cone] of cones) {
          if (cone.length < 1 + graph.customers(asn).length)
            problems.push(`AS${asn}: cone smaller than its customers`);
          if (!cone.includes(asn)) problems.push(`AS${asn}: cone lacks the AS itself`);
          for (let index = 1; index < cone.length; index += 1) {
            if ((cone[index - 1] as number) >= (cone[index] as number)) {
              problems.push(`AS${asn}: cone not strictly ascending`);
              break;
            }
          }
        }
        expect(problems.slice(0, 10)).toEqual([]);
      });

      it('makes a provider cone contain each customer cone', () => {
        for (const asn of [3356, 174, 701, 1299]) {
          const cone = new Set(cones.get(asn) ?? []);
          for (const customer of graph.customers(asn)) {
            for (const member of cones.get(customer) ?? []) {
              if (!cone.has(member))
                throw new Error(`AS${member} is in AS${customer}'s cone but not in provider AS${asn}'s`);
            }
          }
        }
      });

      if (month.cone3356 !== null) {
        it(`gives AS3356 the recursive cone size ${month.cone3356}`, () => {
          expect(cones.get(3356)?.length).toBe(month.cone3356);
        });
      }
    },
  );
}
