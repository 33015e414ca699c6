export * from './paths';
export * from './processes';
export * from './services';
export * from './nginx';
