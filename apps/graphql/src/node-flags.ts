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
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64', '--min-semi-space-size=64'];
