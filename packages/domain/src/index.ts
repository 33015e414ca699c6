export * from './errors';
export * from './types';
export * from './dates';
export * from './sort';
export * from './paging';
