// Hostile input shared by the fuzz and security tests: strings that break naive SQL, JSON, URL and
// GraphQL handling, and the check that an answer is a well-formed result or error, never a crash.

/** SQL metacharacters and classic injections, unicode edge cases, control characters, oversized text. */
export const INJECTION_STRINGS: readonly string[] = [
  "' OR '1'='1",
  "'; DROP TABLE asns; --",
  '"; DROP TABLE datasets; --',
  "1' UNION SELECT name, sql FROM sqlite_master --",
  '1 UNION SELECT table_name FROM information_schema.tables --',
  "%' OR 1=1 --",
  '%',
  '_',
  '\\',
  "\\'; SELECT pg_sleep(10); --",
  "'); DELETE FROM meta; --",
  '1; UPDATE asns SET asn_name = NULL',
  '$1 $2 ?1 :name @p',
  'rank; DROP TABLE asns',
  '-rank, (SELECT 1)',
  'cone.numberAsns desc; --',
  '\u0000',
  '\u202e\u0645\u0631\u062d\u0628\u0627 emoji 🧨 ﷽',
  'e\u0301\u0301\u0301 zalgo',
  '\ud83d',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'x'.repeat(5000),
];

/** A stack frame as Node prints it: must never reach a client. */
const STACK_FRAME = /\n\s+at [^\n]+:\d+:\d+/;

export interface CheckedAnswer {
  status: number;
  problem?: string;
}

/** Returns a description of what is wrong with an answer, or undefined when it is acceptable. */
export function answerProblem(status: number, contentType: string | null, body: string): string | undefined {
  if (status >= 500 && status !== 503) return `HTTP ${status}`;
  if (STACK_FRAME.test(body)) return 'stack trace in body';
  if (body.length === 0) {
    // Node's HTTP parser answers some malformed requests (431, 400) with an empty body; 304 has none.
    return status === 304 || status === 400 || status === 413 || status === 414 || status === 431
      ? undefined
      : `empty ${status}`;
  }
  if (!contentType?.includes('application/json'))
    return `HTTP ${status} with content type ${contentType ?? 'none'}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `HTTP ${status} with a body that is not JSON`;
  }
  if (Array.isArray(parsed)) {
    // A batch (a JSON array of operations) is answered 200 with one GraphQL result per operation.
    if (status !== 200 || parsed.length === 0)
      return `HTTP ${status} with a JSON array: ${body.slice(0, 200)}`;
    const entryProblem = parsed
      .map((entry) => resultProblem(status, entry, body))
      .find((problem) => problem !== undefined);
    return entryProblem === undefined ? undefined : `a batch entry: ${entryProblem}`;
  }
  return resultProblem(status, parsed, body);
}

/** What is wrong with one parsed answer (a whole body, or one entry of a batch's), `body` quoted in the message. */
function resultProblem(status: number, parsed: unknown, body: string): string | undefined {
  if (parsed === null || typeof parsed !== 'object')
    return `HTTP ${status} with a JSON body that is not an object`;
  const record = parsed as Record<string, unknown>;
  const isGraphql = 'data' in record || Array.isArray(record['errors']);
  const isHttpError = typeof record['statusCode'] === 'number' && typeof record['message'] === 'string';
  if (!isGraphql && !isHttpError)
    return `HTTP ${status} with an unexpected JSON shape: ${body.slice(0, 200)}`;
  if (status >= 400 && !isHttpError && !(Array.isArray(record['errors']) && record['errors'].length > 0)) {
    return `HTTP ${status} without an error message`;
  }
  return undefined;
}
