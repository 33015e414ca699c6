// The stack floor stands for "the same answer, without our resolvers or database": it must give the service's own
// data for a request it learned, keep answering it from memory when the service is gone (or it would measure the
// service again), and turn a request the service refuses into an error quoting it instead of a hang (the suite stops on it).
import type { FastifyInstance } from 'fastify';
import { buildStackFloor } from '../src/stack-floor';
import { listenForGraphql, startSampleService, type SampleService } from './sample-service';

const POINT_LOOKUP =
  'query W1($asn: String!) { asn(asn: $asn) { asn asnName rank organization { orgId orgName rank } cone { numberAsns } asnDegree { total } } }';
const NEIGHBOURS =
  'query Neighbours($asn: String!) { asnLinks(asn: $asn, first: 5) { totalCount edges { node { relationship numberPaths asn1 { asn asnName rank } } } } }';

async function post(
  url: string,
  body: unknown,
): Promise<{ status: number; answer: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as Record<string, unknown> };
}

describe('stack floor', () => {
  let sample: SampleService;
  let floor: FastifyInstance;
  let serviceUrl: string;
  let floorUrl: string;
  let largestAsn: string;

  beforeAll(async () => {
    sample = await startSampleService();
    serviceUrl = sample.url;
    floor = await buildStackFloor({ upstreamUrl: serviceUrl, jitAfter: 1 });
    floorUrl = await listenForGraphql(floor);
    const ranked = await post(serviceUrl, {
      query: '{ asns(first: 1, sort: "-cone.numberAsns") { edges { node { asn } } } }',
    });
    largestAsn = (ranked.answer as { data: { asns: { edges: { node: { asn: string } }[] } } }).data.asns
      .edges[0]!.node.asn;
  });

  afterAll(async () => {
    await floor?.close();
    await sample?.dispose();
  });

  it('answers a request the service refuses with an error that quotes what the service said', async () => {
    const { status, answer } = await post(floorUrl, {
      query: POINT_LOOKUP,
      variables: { asn: 'not-a-number' },
    });
    expect(status).toBe(500);
    expect(answer['message']).toMatch(
      /^the service answered 200 for .*asn must be an ASN written as decimal digits/,
    );
  });

  it('answers a learned request with the data the service gave, then from memory alone (service stopped)', async () => {
    const requests = [
      { query: POINT_LOOKUP, variables: { asn: largestAsn } },
      { query: NEIGHBOURS, variables: { asn: largestAsn } },
    ];
    const fromService = await Promise.all(requests.map((request) => post(serviceUrl, request)));
    for (const { status, answer } of fromService) {
      expect(status).toBe(200);
      expect(answer['errors']).toBeUndefined();
    }
    const learned = await Promise.all(requests.map((request) => post(floorUrl, request)));
    expect(learned.map(({ answer }) => answer)).toEqual(fromService.map(({ answer }) => answer));
    expect(
      (learned[1]!.answer as { data: { asnLinks: { edges: unknown[] } } }).data.asnLinks.edges.length,
    ).toBeGreaterThan(0);

    await sample.service.close();
    const remembered = await Promise.all(requests.map((request) => post(floorUrl, request)));
    expect(remembered.map(({ answer }) => answer)).toEqual(fromService.map(({ answer }) => answer));
    // A batch of learned requests (as the REST service sends them) is answered operation by operation.
    const batch = await post(floorUrl, [requests[1], requests[0], requests[1]]);
    expect(batch.status).toBe(200);
    expect(batch.answer).toEqual([fromService[1]!.answer, fromService[0]!.answer, fromService[1]!.answer]);
  });
});
