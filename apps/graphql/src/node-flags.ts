// Flags for `node` itself when it runs the GraphQL service. V8 sizes its heap when the process starts, so these
// cannot be set from inside the service (v8.setFlagsFromString was measured to change nothing); every way of
// starting it passes them: the package's `start` script, the repository's `pnpm start` (scripts/start.js), the
// benchmarks, and the workers (Node's cluster forks them with the primary's flags).
//
// A 500-neighbour page or a 10,000-item cone stream page makes tens of thousands of short-lived objects (rows,
// resolver results, graphql-jit's answer objects). With V8's default 16 MB semi-space they overflowed the young
// generation every few pages, and what was still alive then was promoted to the old generation, which had to be
// mark-compacted: a W5 walk of the generated month took 246 scavenges and 15 mark-compacts, with 64 MB 94-110 and
// 3-9. Measured alternately (docs/performance.md, eighth round): W5 +10%, W3 +4%, the point lookup unchanged,
// resident memory 50-150 MB higher.
//
// The maximum alone lets V8 start the semi-space small and grow (and shrink) it with the survival rate, so the
// young generation of a serving process spent much of its time well under 64 MB (16-32 MB under the historic
// workload). Starting it at its full size (the minimum too) took a W5 walk from 8.3-8.9 to 5.9-6.3 ms of service CPU
// per page, 37-39 -> 45-49 MB/s, alternated runs over HTTP (nineteenth round); the point lookup and W4 unchanged
// or a little faster; resident memory ~60-75 MB higher from the start, start-up 670-680 -> 680-730 ms.
//
// V8 decides per allocation site to allocate its objects straight in the old generation ("pretenuring") when a
// scavenge finds most of them alive. A scavenge that runs while a page is half built (on PostgreSQL, in the idle
// time of a round trip) finds its items alive, and from then on every cone-stream item and answer object was made
// in the old generation: a mark-compact every ~2 s, 35-92 fresh page faults per page, 11.2-12.8 ms of service CPU
// per page, against 2 mark-compacts, ~5 faults and 8.7-10.5 ms with --no-allocation-site-pretenuring (PostgreSQL W5,
// five alternated runs each; docs/performance.md, twenty-first round). Every allocation of a request here dies with
// the request, so the decision never pays; after W5 walks the point lookup, W3 and W4 were faster without it too.
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=64',
  '--min-semi-space-size=64',
  '--no-allocation-site-pretenuring',
];
