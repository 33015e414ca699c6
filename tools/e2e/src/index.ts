export * from './paths';
export * from './processes';
export * from './services';
export * from './nginx';
export * from './load';
export * from './summary';
