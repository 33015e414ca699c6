// Generated request ids: UUID-shaped, distinct within a process; an acceptable incoming id is kept.
import type { IncomingMessage } from 'node:http';
import { requestIdFor } from '../src';

const requestWith = (headers: Record<string, string | string[]>) =>
  ({ headers }) as unknown as IncomingMessage;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it('generates distinct UUID-shaped ids when the request brings none', () => {
    const ids = Array.from({ length: 5000 }, () => requestIdFor(requestWith({})));
    for (const id of ids) expect(id).toMatch(UUID_SHAPE);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps an acceptable incoming id and replaces a hostile one', () => {
    expect(requestIdFor(requestWith({ 'x-request-id': 'trace-42' }))).toBe('trace-42');
    expect(requestIdFor(requestWith({ 'x-request-id': ['first.id', 'second'] }))).toBe('first.id');
    expect(requestIdFor(requestWith({ 'x-request-id': 'bad id\twith spaces' }))).toMatch(UUID_SHAPE);
    expect(requestIdFor(requestWith({ 'x-request-id': 'x'.repeat(129) }))).toMatch(UUID_SHAPE);
  });
});
