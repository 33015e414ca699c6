export * from './tables';
export * from './dialect';
export * from './connection';
export * from './migrator';
export * from './statistics';
export * from './sqlite-dialect';
export * from './name-search';
export * from './row-objects';
