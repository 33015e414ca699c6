// The survey's catalogue: queries over every surface a client reaches, in every order each list accepts, near the
// start and deep, over the latest month, over every loaded month and over the first month as an interval (as a client
// asks for one month's list), with the name filters, nested connections,
// cones and cone walks the workloads leave out. The fiftieth round's survey (docs/performance.md) was a helper's
// script that did not outlive its machine; this one is kept so "what still takes over a second" can be asked again.
import { HISTORIC_SORT_KEY, SORT_KEYS } from '@asrank/domain';
import type { DataFacts } from './workloads';

export interface SurveyQuery {
  /** What the query asks, short enough for a table row (`asnLinks all months sort=-asn1 offset=4000000`). */
  id: string;
  query: string;
  variables: Record<string, unknown>;
}

/**
 * The months a list is asked over: the latest month (no interval), every loaded month, or the first month as an
 * interval of one month (dateStart = dateEnd).
 */
export type ListRange = 'latest' | 'all' | 'first';

/** A list's totals, by range: what a deep page's offset is taken from (read from the service before the survey). */
export interface ListTotals {
  asns: Record<ListRange, number>;
  organizations: Record<ListRange, number>;
  asnLinks: Record<ListRange, number>;
}

/** The lists whose orders are surveyed, with what each page shows of a node. */
const LIST_NODES = {
  asns: 'asn asnName rank',
  organizations: 'orgId orgName rank',
  asnLinks: 'asn0 { asn } asn1 { asn asnName } relationship numberPaths',
} as const;

type ListField = keyof typeof LIST_NODES;

/** The query that reads a list's total in a range: the survey asks it first, for the deep offsets. */
export function totalQuery(list: ListField, months: ListRange, dates: readonly string[]): SurveyQuery {
  const range = rangeArguments(months, dates);
  return {
    id: `${list} ${range.label} total`,
    query: `query Total${range.declared ? `(${range.declared})` : ''} { ${list}(first: 1${range.passed}) { totalCount } }`,
    variables: range.variables,
  };
}

/**
 * A range's part of a query: its label in ids, its variables' declarations (after a comma when there are others),
 * its arguments (after a comma), and their values.
 */
function rangeArguments(months: ListRange, dates: readonly string[]) {
  if (months === 'latest') return { label: 'latest month', declared: '', passed: '', variables: {} };
  return {
    label: months === 'all' ? 'all months' : 'first month as an interval',
    declared: '$dateStart: String!, $dateEnd: String!',
    passed: ', dateStart: $dateStart, dateEnd: $dateEnd',
    variables: { dateStart: dates[0], dateEnd: months === 'all' ? dates.at(-1) : dates[0] },
  };
}

/** `, declarations` of a range for a query that declares variables of its own. */
function alsoDeclared(range: { declared: string }): string {
  return range.declared ? `, ${range.declared}` : '';
}

/**
 * The sort arguments of a list over `months`: its default order, then each key the list accepts ascending and
 * descending (over an interval, the month too).
 */
export function sortsOf(list: 'asns' | 'organizations' | 'asnLinks', months: ListRange): string[] {
  const keys = months === 'latest' ? SORT_KEYS[list] : [...SORT_KEYS[list], HISTORIC_SORT_KEY];
  return ['', ...keys.flatMap((key) => [key, `-${key}`])];
}

/**
 * The catalogue for a store: `facts` name its months and notable ASNs, `totals` its lists' sizes. Every order of
 * `asns`, `organizations` and `asnLinks` at offset 0 and at four fifths of the range (deep pages are where OFFSETs and
 * sorts grow with the data); name filters, one large AS's neighbours in every order, the largest cone, and the first
 * page of a cone walk in every order.
 */
export function surveyQueries(facts: DataFacts, totals: ListTotals): SurveyQuery[] {
  const ranges = facts.dates.length > 1 ? (['latest', 'all'] as const) : (['latest'] as const);
  const queries: SurveyQuery[] = [];
  for (const list of Object.keys(LIST_NODES) as ListField[]) {
    for (const months of [...ranges, 'first'] as const) {
      const range = rangeArguments(months, facts.dates);
      const deep = Math.floor(totals[list][months] * 0.8);
      for (const sort of sortsOf(list, months)) {
        for (const offset of [0, deep]) {
          queries.push({
            id: `${list} ${range.label} sort=${sort || '(default)'} offset=${offset}`,
            query:
              `query Page($sort: String!, $offset: Int!${alsoDeclared(range)}) ` +
              `{ ${list}(first: 100, offset: $offset, sort: $sort${range.passed}) ` +
              `{ totalCount edges { node { ${LIST_NODES[list]} } } } }`,
            variables: { sort, offset, ...range.variables },
          });
        }
      }
    }
  }
  // Name filters: one and two characters (no trigram serves them), a common word, and words of real names.
  const needles = ['a', 'zz', 'net', ...facts.nameWords.slice(0, 4)];
  for (const list of ['asns', 'organizations'] as const)
    for (const months of ranges)
      for (const name of needles) {
        const range = rangeArguments(months, facts.dates);
        queries.push({
          id: `${list} ${range.label} name=${JSON.stringify(name)}`,
          query:
            `query Named($name: String!${alsoDeclared(range)}) ` +
            `{ ${list}(first: 10, name: $name${range.passed}) { totalCount edges { node { ${LIST_NODES[list]} } } } }`,
          variables: { name, ...range.variables },
        });
      }
  const largeAsn = String(facts.largeAsns[0]);
  for (const sort of sortsOf('asnLinks', 'latest'))
    queries.push({
      id: `asn(${largeAsn}).asnLinks sort=${sort || '(default)'}`,
      query:
        'query Neighbours($asn: String!, $sort: String!) { asn(asn: $asn) { asnLinks(first: 500, sort: $sort) ' +
        '{ totalCount edges { node { relationship numberPaths asn1 { asn asnName rank } } } } } }',
      variables: { asn: largeAsn, sort },
    });
  // Single records and their nested lists: sampled ASNs (mostly small cones, whose prefix count once read every
  // prefix of the month) and ASes of middling and large degree.
  const pointAsns = [...facts.sampleAsns.slice(0, 3), facts.largeAsns[10], facts.largeAsns[40]]
    .filter((asn): asn is number => asn !== undefined)
    .map(String);
  for (const asn of pointAsns)
    queries.push(
      {
        id: `asn(${asn}) with its organization, links and cone`,
        query:
          'query Record($asn: String!) { asn(asn: $asn) { asn asnName rank organization { orgId orgName ' +
          'members { numberAsns asns(first: 100) { totalCount edges { node { asn } } } } } ' +
          'asnLinks(first: 100) { totalCount edges { node { asn1 { asn asnName } relationship } } } } }',
        variables: { asn },
      },
      {
        id: `asnCone(${asn}) asns and prefixes`,
        query:
          'query Cone($asn: String!) { asnCone(asn: $asn) { asns(first: 100) { totalCount edges { node { asn } } } ' +
          'prefixes(first: 100) { totalCount edges { node { network length } } } } }',
        variables: { asn },
      },
    );
  queries.push(
    {
      id: 'organizations(first: 100) with their members',
      query:
        '{ organizations(first: 100) { edges { node { orgId members { asns(first: 10) { totalCount edges { node { asn } } } } } } } }',
      variables: {},
    },
    {
      id: 'locations(first: 100) and datasets',
      query:
        '{ locations(first: 100) { totalCount edges { node { locId city country { iso } } } } ' +
        'datasets { totalCount edges { node { date } } } }',
      variables: {},
    },
  );
  const largestCone = String(facts.largestCones[0]);
  queries.push(
    {
      id: `asnCone(${largestCone}) asns and prefixes`,
      query:
        'query Cone($asn: String!) { asnCone(asn: $asn) { asns(first: 1000) { totalCount edges { node { asn } } } ' +
        'prefixes(first: 1000) { totalCount edges { node { network length } } } } }',
      variables: { asn: largestCone },
    },
    {
      id: 'organizations(first: 1000) with their neighbours',
      query: '{ organizations(first: 1000) { edges { node { orgId neighbors(first: 5) { totalCount } } } } }',
      variables: {},
    },
    {
      id: 'asnLinks(first: 500) with their locations',
      query:
        '{ asnLinks(first: 500) { edges { node { asn0 { asn } asn1 { asn } ' +
        'locations(first: 5) { totalCount edges { node { locId city } } } } } } }',
      variables: {},
    },
    // The largest organizations' own pages, each from its members' links (organizationMemberLinks).
    ...[null, '-numberPaths'].map((sort) => ({
      id: `organizations(first: 100) with their links sort=${sort ?? '(default)'}`,
      query:
        'query OrgLinks($sort: String) { organizations(first: 100) { edges { node { orgId ' +
        'asnLinks(first: 5, sort: $sort) { edges { node { asn0 { asn } asn1 { asn asnName } relationship } } } } } } }',
      variables: { sort },
    })),
    // By rank and by ASN from each member's first links; by a column of the neighbours' records with walks of the
    // month's records for members of many links, which an ascending order can cut short (neighborWalk).
    ...[null, 'asn', '-cone.numberAsns', 'cone.numberAsns'].map((sort) => ({
      id: `organizations(first: 100) with their neighbours sort=${sort ?? '(default)'}`,
      query:
        'query OrgNeighbours($sort: String) { organizations(first: 100) { edges { node { orgId ' +
        'neighbors(first: 5, sort: $sort) { edges { node { asn asnName rank } } } } } } }',
      variables: { sort },
    })),
  );
  for (const months of ranges)
    // The walk orders its cones by the keys of `asns`.
    for (const sort of sortsOf('asns', months))
      queries.push({
        id: `asnConesStream ${rangeArguments(months, facts.dates).label} sort=${sort || '(default)'}`,
        query:
          'query Walk($sort: String!, $dates: [String!]) { asnConesStream(first: 1000, sort: $sort, dates: $dates) ' +
          '{ pageInfo { hasNextPage nextPageCursor } pages { coneIndex asn { asn } asns { asn } } } }',
        variables: { sort, dates: months === 'latest' ? null : facts.dates },
      });
  queries.push(...pastFirstPages(facts, ranges));
  return queries;
}

/**
 * Pages the seventy-eighth round found slow by hand (0.2-4.8 s), which the lists' orders above do not ask: nested
 * pages past the first (and past every parent's rows), names over every month in a client order, links by relationship
 * then by the month, and a few large ASes' links as a list, over every month and by ASN in one month; and (the
 * seventy-ninth round) one large AS's links and the list's by relationship over every month; and (the eightieth) the
 * largest organizations' links past their 500th.
 */
function pastFirstPages(facts: DataFacts, ranges: readonly ListRange[]): SurveyQuery[] {
  const queries: SurveyQuery[] = [];
  for (const offset of [100, 100_000])
    queries.push(
      {
        id: `organizations(first: 100) with their neighbours offset=${offset}`,
        query: `{ organizations(first: 100) { edges { node { orgId neighbors(first: 5, offset: ${offset}) { totalCount edges { node { asn } } } } } } }`,
        variables: {},
      },
      {
        id: `asns(first: 100) with their links offset=${offset}`,
        query: `{ asns(first: 100) { edges { node { asn asnLinks(first: 5, offset: ${offset}) { totalCount edges { node { asn1 { asn } } } } } } } }`,
        variables: {},
      },
    );
  // (The eightieth round) the largest organizations' links deep into each, whose members' cuts test every far end.
  for (const sort of [null, '-numberPaths'])
    queries.push({
      id: `organizations(first: 100) with their links offset=500 sort=${sort ?? '(default)'}`,
      query:
        'query OrgLinksDeep($sort: String) { organizations(first: 100) { edges { node { orgId ' +
        'asnLinks(first: 5, offset: 500, sort: $sort) { totalCount edges { node { asn1 { asn } relationship } } } } } } }',
      variables: { sort },
    });
  if (!ranges.includes('all')) return queries;
  const all = rangeArguments('all', facts.dates);
  for (const list of ['asns', 'organizations'] as const)
    for (const sort of ['-cone.numberAsns', list === 'asns' ? 'asnName' : 'orgName'])
      queries.push({
        id: `${list} all months name="net" sort=${sort}`,
        query:
          `query Named($sort: String!${alsoDeclared(all)}) { ${list}(first: 100, name: "net", sort: $sort${all.passed}) ` +
          `{ totalCount edges { node { ${LIST_NODES[list]} } } } }`,
        variables: { sort, ...all.variables },
      });
  for (const sort of ['relationship,-date', '-relationship,date'])
    for (const offset of [0, 50_000])
      queries.push({
        id: `asnLinks all months sort=${sort} offset=${offset}`,
        query:
          `query Page($sort: String!, $offset: Int!${alsoDeclared(all)}) { asnLinks(first: 100, offset: $offset, ` +
          `sort: $sort${all.passed}) { totalCount edges { node { ${LIST_NODES.asnLinks} } } } }`,
        variables: { sort, offset, ...all.variables },
      });
  const listed = facts.largeAsns.slice(0, 5).map(String);
  queries.push(
    {
      id: 'asnLinks(asns: 5 large ASes) all months offset=50000',
      query:
        `query Listed($asns: [String!]${alsoDeclared(all)}) { asnLinks(asns: $asns, first: 100, offset: 50000${all.passed}) ` +
        `{ totalCount edges { node { ${LIST_NODES.asnLinks} } } } }`,
      variables: { asns: listed, ...all.variables },
    },
    {
      id: 'asnLinks(asns: 5 large ASes) latest month sort=-asn0',
      query:
        'query Listed($asns: [String!]) { asnLinks(asns: $asns, first: 100, sort: "-asn0") ' +
        `{ totalCount edges { node { ${LIST_NODES.asnLinks} } } } }`,
      variables: { asns: listed },
    },
  );
  // The seventy-ninth round: one large AS's and the list's links by relationship over every month, deep and not.
  const owners = [
    {
      who: 'asn: a large AS',
      declared: '$asn: String',
      argument: 'asn: $asn',
      variables: { asn: listed[0] },
    },
    {
      who: 'asns: 5 large ASes',
      declared: '$asns: [String!]',
      argument: 'asns: $asns',
      variables: { asns: listed },
    },
  ];
  for (const { who, declared, argument, variables } of owners)
    for (const sort of ['relationship', '-relationship'])
      for (const offset of [0, 50_000])
        queries.push({
          id: `asnLinks(${who}) all months sort=${sort} offset=${offset}`,
          query:
            `query Blocks(${declared}, $sort: String!, $offset: Int!${alsoDeclared(all)}) ` +
            `{ asnLinks(${argument}, first: 100, offset: $offset, sort: $sort${all.passed}) ` +
            `{ totalCount edges { node { ${LIST_NODES.asnLinks} } } } }`,
          variables: { ...variables, sort, offset, ...all.variables },
        });
  return queries;
}
