export { createSchema, printSchemaSDL, STATEMENT_TIMEOUT_MESSAGE } from './schema';
export {
  createContext,
  createStoreFacts,
  type AsrankContext,
  type ContextOptions,
  type StoreFacts,
} from './context';
export { coneStreamTuning } from './coneSource';
export { nameSearchTuning } from './nameSearch';
export { listTotalsTuning } from './listTotals';
export { linkPageTuning } from './types/asnLink';
export { monthByMonthTuning } from './monthByMonth';
export { nestedPageTuning } from './nestedPages';
export { organizationNeighborTuning } from './types/organization';
export { DEFAULT_BOOKMARK_STEP, type PageBookmarksOptions } from './pageBookmarks';
export type { StatementObserver } from './compiledLookups';
