// AsnCone: the customer cone of one ASN in one month (member ASNs and their prefixes); root field `asnCone`.
import { parseDateArgument, parseDateList } from '@asrank/domain';
import { builder } from '../builder';
import type { AsnRow, AsrankContext } from '../context';
import { pageOf, parseAsnArgument } from '../args';
import {
  coneMemberSlice,
  conePrefixSlice,
  countConePrefixes,
  rowsPerQuery,
  withCheckedSize,
  type WalkCone,
  type WalkScope,
} from '../coneSource';
import type { ConnectionPage } from './pageInfo';
import { AsnConeRef, AsnRef, type AsnConeRecord, type PrefixRecord } from './refs';
import { ConeRef } from './stats';
import { AsnConnection, placeholderAsn } from './asn';
import { PrefixConnection } from './prefix';
import { connectionNeeds, selectedAsnNodeColumns, type AsnColumn } from '../asnColumns';

/**
 * Stand-ins for members' Asn rows when the selection reads only their key (selectsOnlyAsnKey): those fields read
 * nothing else, so the rows of a 10,000-member page are not loaded.
 */
export function memberKeys(members: readonly { date: string; asn: number }[]): AsnRow[] {
  return members as AsnRow[];
}

/** The stand-in of one ASN's row, as memberKeys gives for many. */
export function memberKey(member: { date: string; asn: number }): AsnRow {
  return member as AsnRow;
}

/**
 * Asn records of members (placeholders for members without a record of their own), one batched query reading
 * `columns` (see asnColumns.ts; null for whole rows).
 */
export async function memberRecords(
  context: AsrankContext,
  members: readonly { date: string; asn: number }[],
  columns: readonly AsnColumn[] | null,
): Promise<AsnRow[]> {
  const rows = await context
    .asnLoader(columns)
    .loadMany(members.map((member) => ({ date: member.date, id: member.asn })));
  return rows.map((row, index) => {
    if (row instanceof Error) throw row;
    const member = members[index]!;
    return row ?? placeholderAsn(member.date, member.asn);
  });
}

/**
 * The cone's member rows as its ASN's row keeps them (migration 021), or 0 when the row does not say: a cone always
 * holds its own ASN, so 0 is a row written without the count (or an ASN with no cone), and the members are counted.
 */
function keptMemberCount(cone: AsnConeRecord): number {
  return Number(cone.asn.number_cone_members ?? 0);
}

/** The cones of the request as the walks need them, checked once for both lists (per record of the request). */
const checkedCones = new WeakMap<AsnConeRecord, Promise<WalkCone>>();

/**
 * The cone as the member and prefix walks need it (its sizes choose where they read from, coneSource.ts), its member
 * count checked against its counts (withCheckedSize).
 */
function walkConeOf(scope: WalkScope, cone: AsnConeRecord): Promise<WalkCone> {
  let checked = checkedCones.get(cone);
  if (!checked) {
    checked = withCheckedSize(scope, {
      date: cone.date,
      asn: Number(cone.asn.asn),
      coneAsns: Number(cone.asn.cone_asns),
      conePrefixes: Number(cone.asn.cone_prefixes),
      memberCount: keptMemberCount(cone),
    });
    checkedCones.set(cone, checked);
  }
  return checked;
}

AsnConeRef.implement({
  description:
    'The customer cone of an ASN in one month: the ASNs reachable through customer links, itself included.',
  fields: (t) => ({
    date: t.exposeString('date'),
    // Both read the ASN's record inline (exposed: no resolver call; schema/index.ts).
    asn: t.expose('asn', { type: AsnRef }),
    cone: t.expose('asn', { type: ConeRef }),
    asns: t.field({
      type: AsnConnection,
      description: 'Member ASNs in ASN order.',
      args: { first: t.arg.int(), offset: t.arg.int() },
      resolve: async (cone, args, context, info): Promise<ConnectionPage<AsnRow>> => {
        const page = pageOf(args);
        const scope = {
          db: context.db,
          dialect: context.dialect,
          dataVersion: await context.dataVersion(),
          rows: rowsPerQuery(page.first),
        };
        const key = await walkConeOf(scope, cone);
        // A total alone reads no page: the largest cone's first 1,000 members and their records cost 1-5 ms for it.
        const nodes = connectionNeeds(info).nodes
          ? await memberRecords(
              context,
              await coneMemberSlice(scope, key, page.offset, page.first),
              selectedAsnNodeColumns(info),
            )
          : [];
        return {
          nodes,
          ...page,
          totalCount: async () => {
            if (key.members) return key.members.length;
            const kept = keptMemberCount(cone);
            if (kept > 0) return kept;
            const row = await context.db
              .selectFrom('cone_members')
              .select((eb) => eb.fn.countAll().as('total'))
              .where('date', '=', key.date)
              .where('asn', '=', key.asn)
              .executeTakeFirst();
            return Number(row?.total ?? 0);
          },
        };
      },
    }),
    prefixes: t.field({
      type: PrefixConnection,
      description:
        'Distinct prefixes originated by member ASNs, in address order (a prefix with several origins in the cone is listed once).',
      args: { first: t.arg.int(), offset: t.arg.int() },
      resolve: async (cone, args, context, info): Promise<ConnectionPage<PrefixRecord>> => {
        const page = pageOf(args);
        const scope = {
          db: context.db,
          dialect: context.dialect,
          dataVersion: await context.dataVersion(),
          rows: rowsPerQuery(page.first),
        };
        const key = await walkConeOf(scope, cone);
        return {
          nodes: connectionNeeds(info).nodes
            ? await conePrefixSlice(scope, key, page.offset, page.first)
            : [],
          ...page,
          totalCount: () => countConePrefixes(scope, key),
        };
      },
    }),
  }),
});

builder.queryFields((t) => ({
  asnCone: t.field({
    type: AsnConeRef,
    nullable: true,
    description:
      'The customer cone of `asn` in the latest month, or in the latest loaded month among `date` and `dates` (either or both); null when the ASN has no cone there.',
    args: {
      asn: t.arg.string({ required: true }),
      date: t.arg.string({ description: 'Month (YYYY-MM-DD or YYYYMMDD).' }),
      dates: t.arg.stringList({ description: 'Candidate months; the latest loaded one is used.' }),
    },
    resolve: async (_root, args, context) => {
      const asn = parseAsnArgument(args.asn, 'asn');
      const wanted = [
        ...(args.date != null && args.date !== '' ? [parseDateArgument(args.date, 'date')] : []),
        ...(parseDateList(args.dates, 'dates') ?? []),
      ];
      const available = await context.availableDates();
      const date =
        wanted.length === 0 ? available.at(-1) : available.filter((month) => wanted.includes(month)).at(-1);
      if (!date) return null;
      const row = await context.loaders.asn.load({ date, id: asn });
      if (!row) return null;
      const cone = { date, asn: row };
      if (keptMemberCount(cone) > 0) return cone;
      // No count kept: whether the cone has a member row says whether there is one.
      const member = await context.db
        .selectFrom('cone_members')
        .select('member_asn')
        .where('date', '=', date)
        .where('asn', '=', asn)
        .limit(1)
        .executeTakeFirst();
      return member ? cone : null;
    },
  }),
}));
