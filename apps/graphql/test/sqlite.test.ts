// The service over a SQLite file loaded with the committed sample.
import { defineServiceSuite } from './service-suite';
import { sqliteWithSample } from './helpers';

describe('GraphQL service on SQLite', () => {
  defineServiceSuite(sqliteWithSample);
});
