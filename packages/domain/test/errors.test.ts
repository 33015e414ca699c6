import { ArgumentError } from '../src';

describe('ArgumentError', () => {
  it('names the argument and carries its message, without a call stack', () => {
    const error = new ArgumentError('sort', 'sort key "bogus" is not sortable');
    expect(error).toBeInstanceOf(Error);
    expect(error.argument).toBe('sort');
    expect(error.message).toBe('sort key "bogus" is not sortable');
    // No frame is captured (a refused argument needs none, and 1,000 of them in one page cost their capture).
    expect(error.stack).toBe('ArgumentError: sort key "bogus" is not sortable');
  });

  it('leaves the process stack trace limit as it found it', () => {
    const before = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 7;
      new ArgumentError('first', 'first must be at least 1');
      expect(Error.stackTraceLimit).toBe(7);
      // Errors made after it still have their frames.
      expect(new Error('other').stack).toMatch(/\n\s+at /);
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});
