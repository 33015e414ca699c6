// Route schemas for the REST parameters and their translation into GraphQL variables. The limits are the
// domain's constants and parsers, the same ones the GraphQL schema applies, so both layers accept and
// refuse the same requests; the schemas also feed the OpenAPI guide at /restful/doc.
import {
  DEFAULT_PAGE_SIZE,
  MAX_OFFSET,
  MAX_PAGE_SIZE,
  parseDateArgument,
  parseSort,
  type SortOperation,
} from '@asrank/domain';

/** What each parameter allows, in words; validation errors quote it so the client knows how to fix the call. */
export const PARAMETER_RULES: Readonly<Record<string, string>> = {
  asn: 'an AS number, digits only (e.g. 3356)',
  asn0: 'an AS number, digits only (e.g. 3356)',
  name: 'one or more characters of an AS or organization name',
  organization: 'an organization id, one or more characters',
  orgId: 'an organization id, one or more characters',
  first: `a whole number from 0 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
  offset: `a whole number from 0 to ${MAX_OFFSET} (default 0)`,
  sort: 'comma-separated sort keys, each optionally prefixed with - (descending) or + (ascending)',
  date: 'a date as YYYY-MM-DD or YYYYMMDD',
  dateStart: 'a date as YYYY-MM-DD or YYYYMMDD (inclusive start of the interval)',
  dateEnd: 'a date as YYYY-MM-DD or YYYYMMDD (inclusive end of the interval)',
  populate: '1 for the REST record shape, 0 (default) for the GraphQL shape',
};

/**
 * A refusal of one parameter as every REST error words it: `invalid query parameter 'first': <problem>; allowed:
 * <its rule>` (no rule when `rule` is null).
 */
export function invalidParameterMessage(
  where: string,
  name: string,
  problem: string,
  rule: string | null = PARAMETER_RULES[name] ?? null,
): string {
  return `invalid ${where} '${name}': ${problem}${rule !== null ? `; allowed: ${rule}` : ''}`;
}

const asnPattern = {
  type: 'string',
  pattern: '^[0-9]+$',
  maxLength: 10,
  description: PARAMETER_RULES.asn,
} as const;

export const asnParams = {
  type: 'object',
  required: ['asn'],
  properties: { asn: asnPattern },
} as const;

export const asn0Params = {
  type: 'object',
  required: ['asn0'],
  properties: { asn0: { ...asnPattern, description: PARAMETER_RULES.asn0 } },
} as const;

export const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100, description: PARAMETER_RULES.name } },
} as const;

export const organizationParams = {
  type: 'object',
  required: ['organization'],
  properties: {
    organization: { type: 'string', minLength: 1, maxLength: 100, description: PARAMETER_RULES.organization },
  },
} as const;

export const orgIdParams = {
  type: 'object',
  required: ['orgId'],
  properties: { orgId: { type: 'string', minLength: 1, maxLength: 100, description: PARAMETER_RULES.orgId } },
} as const;

const populateProperty = {
  type: 'integer',
  enum: [0, 1],
  default: 0,
  description: PARAMETER_RULES.populate,
} as const;

const dateProperty = (name: 'date' | 'dateStart' | 'dateEnd') =>
  ({ type: 'string', minLength: 1, maxLength: 10, description: PARAMETER_RULES[name] }) as const;

/** `first` and `offset` of a page, as list routes and an organization's members take them. */
const pageProperties = {
  first: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: PARAMETER_RULES.first,
  },
  offset: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_OFFSET,
    default: 0,
    description: PARAMETER_RULES.offset,
  },
} as const;

/** Query string of list routes: paging, sort, historic interval and populate. */
export const listQuerystring = {
  type: 'object',
  properties: {
    ...pageProperties,
    sort: { type: 'string', maxLength: 500, description: PARAMETER_RULES.sort },
    dateStart: dateProperty('dateStart'),
    dateEnd: dateProperty('dateEnd'),
    populate: populateProperty,
  },
} as const;

/** Query string of single-record routes: the month and populate. */
export const recordQuerystring = {
  type: 'object',
  properties: {
    date: dateProperty('date'),
    populate: populateProperty,
  },
} as const;

/**
 * Query string of one organization: the month, populate, and the page of its member ASNs (without it, an
 * organization of more than 40 ASNs could not be read whole over REST).
 */
export const organizationQuerystring = {
  type: 'object',
  properties: {
    ...recordQuerystring.properties,
    first: { ...pageProperties.first, description: `${PARAMETER_RULES.first}: member ASNs per page` },
    offset: {
      ...pageProperties.offset,
      description: `${PARAMETER_RULES.offset}: first member ASN of the page`,
    },
  },
} as const;

export interface OrganizationQuery extends RecordQuery {
  first: number;
  offset: number;
}

export interface ListQuery {
  first: number;
  offset: number;
  sort?: string;
  dateStart?: string;
  dateEnd?: string;
  populate: 0 | 1;
}

export interface RecordQuery {
  date?: string;
  populate: 0 | 1;
}

function normalisedDate(value: string | undefined, argument: string): string | null {
  return value === undefined ? null : parseDateArgument(value, argument);
}

/**
 * GraphQL variables of a list query. Sort keys are checked against the operation's keys (`date` is always
 * allowed here: whether it needs an interval is the GraphQL service's call, so REST never refuses what
 * GraphQL accepts); errors are ArgumentErrors naming the parameter.
 */
export function listVariables(query: ListQuery, operation: SortOperation): Record<string, unknown> {
  if (query.sort !== undefined) parseSort(query.sort, operation, { historic: true, argument: 'sort' });
  return {
    first: query.first,
    offset: query.offset,
    sort: query.sort ?? null,
    dateStart: normalisedDate(query.dateStart, 'dateStart'),
    dateEnd: normalisedDate(query.dateEnd, 'dateEnd'),
  };
}

export function recordVariables(query: RecordQuery): Record<string, unknown> {
  return { date: normalisedDate(query.date, 'date') };
}
