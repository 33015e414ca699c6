// Configuration: defaults, validation with one clear line per bad value, base path normalisation.
import os from 'node:os';
import { ConfigError, loadConfig, withStatementTimeout } from '../src';

describe('loadConfig', () => {
  it('uses the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      databaseUrl: './data/asrank.db',
      basePath: '',
      logLevel: 'info',
    });
    expect(config.maxQueryDepth).toBeGreaterThanOrEqual(14);
  });

  it('reads numbers from strings and ignores unrelated variables', () => {
    const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', GRAPHQL_MAX_COST: '1234', UNRELATED: 'x' });
    expect(config).toMatchObject({ port: 8080, host: '0.0.0.0', maxQueryCost: 1234 });
    expect(config).not.toHaveProperty('UNRELATED');
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number written in decimal digits/],
    [{ PORT: '0x10' }, /PORT must be a whole number written in decimal digits, got "0x10"/],
    // PostgreSQL's statement_timeout and Node's timers take at most 2^31-1 ms.
    [{ DB_STATEMENT_TIMEOUT_MS: '2147483648' }, /DB_STATEMENT_TIMEOUT_MS must be <= 2147483647/],
    [{ REQUEST_TIMEOUT_MS: '99999999999999999999999' }, /REQUEST_TIMEOUT_MS must be <= 2147483647/],
    [{ PORT: '70000' }, /PORT must be <= 65535/],
    [{ BASE_PATH: 'v2' }, /BASE_PATH must match pattern/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be equal to one of the allowed values/],
    [{ BODY_LIMIT: '10' }, /BODY_LIMIT must be >= 1024/],
    [{ WORKERS: '0' }, /WORKERS must match pattern/],
    [{ WORKERS: 'many' }, /WORKERS must match pattern/],
  ])('refuses %p with a one-line message naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('\n');
  });

  it('runs one process by default, a given count, or one per usable core for WORKERS=auto', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(os.availableParallelism());
  });

  it('normalises a trailing slash of BASE_PATH', () => {
    expect(loadConfig({ BASE_PATH: '/v2/' }).basePath).toBe('/v2');
    expect(loadConfig({ BASE_PATH: '/' }).basePath).toBe('');
  });
});

describe('withStatementTimeout', () => {
  it('adds statement_timeout to PostgreSQL URLs only, keeping one the URL already sets', () => {
    expect(withStatementTimeout('postgres://u@h:5432/db', 5000)).toBe(
      'postgres://u@h:5432/db?statement_timeout=5000',
    );
    expect(withStatementTimeout('postgres://u@h/db?statement_timeout=10', 5000)).toBe(
      'postgres://u@h/db?statement_timeout=10',
    );
    expect(withStatementTimeout('./data/asrank.db', 5000)).toBe('./data/asrank.db');
    expect(withStatementTimeout('postgres://u@h/db', 0)).toBe('postgres://u@h/db');
  });
});
