export * from './load-shedding';
