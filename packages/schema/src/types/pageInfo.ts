// PageInfo and the offset-paged connection types (Relay shape: edges { node cursor }, non-null pageInfo)
// plus totalCount and PageInfo's first/offset/status, as the spec's responses show.
import type { ObjectRef } from '@pothos/core';
import { buildPageInfo, offsetCursor, type PageInfo } from '@asrank/domain';
import { builder } from '../builder';

/** One page of nodes as resolvers return it; edges and pageInfo are derived from it. */
export interface ConnectionPage<T> {
  nodes: T[];
  /** A number, or a function computing it only when the client asks for totalCount or pageInfo (costly counts). */
  totalCount: number | (() => Promise<number>);
  first: number;
  offset: number;
}

export const PageInfoRef = builder.objectRef<PageInfo>('PageInfo').implement({
  description: 'Offset paging state of a connection.',
  fields: (t) => ({
    first: t.exposeInt('first', { description: 'Page size.' }),
    offset: t.exposeInt('offset', { description: 'Position of the first node of this page.' }),
    status: t.exposeString('status'),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage'),
    hasNextPage: t.exposeBoolean('hasNextPage'),
    startCursor: t.exposeString('startCursor'),
    endCursor: t.exposeString('endCursor'),
  }),
});

// totalCount and pageInfo both need the count; a lazy count runs once per page object.
const lazyTotals = new WeakMap<object, Promise<number>>();

function totalOf(page: ConnectionPage<unknown>): number | Promise<number> {
  const { totalCount } = page;
  if (typeof totalCount !== 'function') return totalCount;
  let total = lazyTotals.get(page);
  if (!total) {
    total = totalCount();
    lazyTotals.set(page, total);
  }
  return total;
}

/** A node and its position in the connection; the cursor is encoded only when a client selects it. */
interface Edge<T> {
  node: T;
  position: number;
}

// Pothos' ObjectRef is invariant in its schema-types parameter; the builder's own type is the one used here.
type Ref<T> = ObjectRef<typeof builder extends { $inferSchemaTypes: infer S } ? S : never, T>;

/** Declares `${name}Connection` and `${name}Edge` for node type `nodeRef`. */
export function connectionOf<T>(name: string, nodeRef: Ref<T>, description: string): Ref<ConnectionPage<T>> {
  const edgeRef = builder.objectRef<Edge<T>>(`${name}Edge`).implement({
    fields: (t) => ({
      // Exposed under its own name, so without a resolver: graphql-jit reads it inline for every edge.
      node: t.expose('node', { type: nodeRef } as never),
      // Encoding a cursor costs a Buffer and a base64 string: 500 per neighbour page whose client never shows them.
      cursor: t.string({
        description: 'Opaque position of this node in the connection.',
        resolve: (edge) => offsetCursor(edge.position),
      }),
    }),
  });
  return builder.objectRef<ConnectionPage<T>>(`${name}Connection`).implement({
    description,
    fields: (t) => ({
      totalCount: t.int({ description: 'Number of nodes over all pages.', resolve: (page) => totalOf(page) }),
      pageInfo: t.field({
        type: PageInfoRef,
        resolve: async (page) =>
          buildPageInfo({ first: page.first, offset: page.offset }, page.nodes.length, await totalOf(page)),
      }),
      edges: t.field({
        type: [edgeRef],
        resolve: (page) => page.nodes.map((node, index) => ({ node, position: page.offset + index })),
      }),
    }),
  }) as Ref<ConnectionPage<T>>;
}
