export { createSchema, printSchemaSDL } from './schema';
export { createContext, type AsrankContext } from './context';
export { coneStreamTuning } from './coneSource';
