// readEnvironment must do what env-schema did for the services' configuration: coerce strings to the schema's types,
// fill in defaults, leave out variables the schema does not name, and refuse a bad value with one line naming it.
import { EnvironmentError, readEnvironment } from '../src';

const schema = {
  type: 'object',
  required: ['DATABASE_URL'],
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 4000 },
    DATABASE_URL: { type: 'string', minLength: 1 },
    LOG_LEVEL: { type: 'string', enum: ['info', 'warn', 'silent'], default: 'info' },
    CACHE: { type: 'boolean', default: true },
  },
} as const;

interface Settings {
  PORT: number;
  DATABASE_URL: string;
  LOG_LEVEL: string;
  CACHE: boolean;
}

describe('readEnvironment', () => {
  it('coerces, fills in defaults and leaves out what the schema does not name', () => {
    const env = { PORT: '8080', DATABASE_URL: 'asrank.db', CACHE: 'false', HOME: '/root' };
    expect(readEnvironment<Settings>(schema, env)).toEqual({
      PORT: 8080,
      DATABASE_URL: 'asrank.db',
      LOG_LEVEL: 'info',
      CACHE: false,
    });
    // The caller's object (process.env in the services) is read, never changed.
    expect(env).toEqual({ PORT: '8080', DATABASE_URL: 'asrank.db', CACHE: 'false', HOME: '/root' });
  });

  it.each([
    [{ DATABASE_URL: 'a.db', PORT: '70000' }, 'PORT must be <= 65535'],
    [
      { DATABASE_URL: 'a.db', PORT: 'eighty' },
      'PORT must be a whole number written in decimal digits, got "eighty"',
    ],
    // Number() reads these, so a typo served on another port.
    [
      { DATABASE_URL: 'a.db', PORT: '0x10' },
      'PORT must be a whole number written in decimal digits, got "0x10"',
    ],
    [{ DATABASE_URL: 'a.db', PORT: '1e3' }, 'PORT must be a whole number written in decimal digits'],
    [{ DATABASE_URL: 'a.db', PORT: ' 4510' }, 'PORT must be a whole number written in decimal digits'],
    [{ DATABASE_URL: 'a.db', PORT: '' }, 'PORT must be a whole number written in decimal digits, got ""'],
    [{ DATABASE_URL: 'a.db', LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be equal to one of the allowed values'],
    [{}, "must have required property 'DATABASE_URL'"],
  ])('refuses %p with one line naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      readEnvironment(schema, env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EnvironmentError);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toMatch(/\n|env\//);
  });

  it('names every bad variable at once', () => {
    let message = '';
    try {
      readEnvironment(schema, { DATABASE_URL: '', PORT: '-1' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('PORT must be >= 0');
    expect(message).toContain('DATABASE_URL must NOT have fewer than 1 characters');
  });
});
