export * from './load-shedding';
export * from './graceful-close';
