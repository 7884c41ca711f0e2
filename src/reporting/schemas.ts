/** The schema of the views readers read. */
export const REPORTING_SCHEMA = 'reporting';

/**
 * The schema behind the views, which no reader may use: the materialized views and every
 * view's query (reporting.X reads reporting_private.X, leaving out the rows of accounts the
 * reader may not see), the readers' accounts and the function that looks them up.
 */
export const REPORTING_PRIVATE_SCHEMA = 'reporting_private';
