export * from './load-shedding';
export * from './graceful-close';
export * from './workers';
export * from './content-hash';
export * from './large-answers';
export * from './json-bytes';
export * from './environment';
export * from './request-id';
