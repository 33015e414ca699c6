// The summary copied into docs/performance.md must say how the measured processes ran: a figure taken under other
// node flags than the service's start script uses would not be the service's.
import { parseSuiteOptions } from '../src/options';
import { formatMarkdown, type SuiteReport } from '../src/report';

function reportWith(nodeFlags?: readonly string[]): SuiteReport {
  const { spec } = parseSuiteOptions([]);
  return {
    at: '2026-11-23T00:00:00.000Z',
    machine: { cpu: '2 x test CPU', memoryGb: 4, node: 'v20.0.0', platform: 'Linux' },
    loadAverageAtStart: [0.5, 0.5, 0.5],
    options: { connections: 10, duration: 10, spec, workers: 1, nodeFlags },
    stores: [],
  };
}

describe('formatMarkdown', () => {
  it('names the node flags the GraphQL service, the floor and the ceiling ran under', () => {
    const text = formatMarkdown(reportWith(['--max-semi-space-size=64']));
    expect(text).toContain(
      'GraphQL service WORKERS=1, under node --max-semi-space-size=64 (so are the stack floor and the ceiling).',
    );
  });

  it('says nothing of node flags when the run had none', () => {
    expect(formatMarkdown(reportWith([]))).not.toContain('under node');
    expect(formatMarkdown(reportWith())).toContain('GraphQL service WORKERS=1.');
  });
});
