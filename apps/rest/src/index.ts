export { buildRestApp, type BuildRestAppConfig } from './app';
export { readConfig, ConfigError, type RestConfig } from './config';
export { restAsnRecord, restOrganizationRecord, restAsnLinkRecord } from './populate';
export type { RestAsnRecord, RestOrganizationRecord, RestAsnLinkRecord } from './populate';
