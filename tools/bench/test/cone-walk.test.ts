// W5's client reads only the head of each page and counts the rest: it must still follow the cursors to the end of
// the walk, count exactly the bytes the service sent, and stop on an answer that is not a page.
import { medianWalkIndex, walkConeStream } from '../src/cone-walk';
import { W5_QUERY } from '../src/workloads';
import { startSampleService, type SampleService } from './sample-service';

describe('walkConeStream', () => {
  let sample: SampleService;

  beforeAll(async () => {
    sample = await startSampleService();
  });

  afterAll(async () => {
    await sample?.dispose();
  });

  it('walks every page to the end and counts the bytes each page had', async () => {
    const ranked = await fetch(sample.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ asns(first: 3, sort: "-cone.numberAsns") { edges { node { asn } } } }',
      }),
    });
    const asns = (
      (await ranked.json()) as { data: { asns: { edges: { node: { asn: string } }[] } } }
    ).data.asns.edges.map((edge) => edge.node.asn);
    // The same walk by hand, page by page, decoding each page whole.
    const query = W5_QUERY.replace('first: 10000', 'first: 50');
    let cursor = '';
    let pages = 0;
    let bytes = 0;
    for (;;) {
      const answer = await fetch(sample.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { asns, cursor } }),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      pages++;
      bytes += body.length;
      const pageInfo = (
        JSON.parse(body.toString('utf8')) as {
          data: { asnConesStream: { pageInfo: { hasNextPage: boolean; nextPageCursor: string } } };
        }
      ).data.asnConesStream.pageInfo;
      if (!pageInfo.hasNextPage) break;
      cursor = pageInfo.nextPageCursor;
    }
    expect(pages).toBeGreaterThan(2);
    const walked = await walkConeStream({ url: sample.url, query, asns });
    expect(walked.pages).toBe(pages);
    expect(walked.bytes).toBe(bytes);
    expect(walked.seconds).toBeGreaterThan(0);
  });

  it('stops with the answer quoted when a page is not one', async () => {
    await expect(
      walkConeStream({ url: sample.url, query: W5_QUERY.replace('first: 10000', 'first: 0'), asns: [] }),
    ).rejects.toThrow(/W5: page 1 answered 200: .*first \(items per stream page\) must be/);
  });
});

describe('medianWalkIndex', () => {
  it('picks the walk whose rate is the median, wherever it ran', () => {
    expect(medianWalkIndex([58.0, 44.1, 51.3])).toBe(2);
    expect(medianWalkIndex([40, 50, 60])).toBe(1);
    expect(medianWalkIndex([47])).toBe(0);
    // An even count takes the lower middle walk, not the faster one.
    expect(medianWalkIndex([60, 40, 55, 45])).toBe(3);
    expect(() => medianWalkIndex([])).toThrow('no walk');
  });
});
