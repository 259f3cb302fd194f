export * from './dto/events.dto';
export * from './dto/metrics.dto';
export * from './entities';
export * from './events/event-batch-body';
export * from './events/event-types';
export * from './events/event-validation';
export * from './events/events.service';
export * from './funnels/funnel-description.dto';
export * from './funnels/funnel-descriptions.service';
export * from './metric-definitions';
export * from './metrics.module';
export * from './metrics.service';
export { AB_TEST_FILTERS } from './query/metric-query';
export type { AbTestFilter, MetricWindow } from './query/metric-query';
// The pieces the equivalence suites (test/metrics-*) compare with each other and with SQL.
export {
  beginFunnelTransaction,
  insertEvents,
  lockFunnelAndReadSessions,
  saveMessages,
  SESSION_COLUMNS,
  sessionFromRow,
} from './events/event-store';
export type { SessionRow, Sql } from './events/event-store';
export { SESSION_DIMENSIONS, sessionContributions } from './events/session-state';
export type { EventCounts, SessionCounts } from './rollups/rollup-deltas';
export { RollupReader } from './rollups/rollup-reader';
export { EVENT_GRAINS, SESSION_GRAINS } from './time/buckets';
export { weekdayHourSlot } from './time/local-time';
export { FixedOffsetZone } from './time/time-zone';
