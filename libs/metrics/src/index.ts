export * from './dto/events.dto';
export * from './dto/metrics.dto';
export * from './entities';
export * from './events/event-batch-body';
export * from './events/event-types';
export * from './events/event-validation';
export * from './events/events.service';
export { CompanyWriters } from './events/company-writers';
export { ContactConversions, type ContactConversion } from './events/contact-conversions';
export { SessionSummaryReader, type SessionSummary } from './events/session-summary.reader';
export { EventRetention } from './events/event-retention';
export { EventPartitions } from './events/event-partitions';
export { IngestionActivity } from './events/ingestion-activity';
export { SegmentFolder, SHARE_WHILE_INGESTING } from './segments/segment-folder';
export { FOLD_EVENT_SUMS_SQL } from './segments/segment-refold';
export * from './funnels/funnel-description.dto';
export * from './funnels/funnel-descriptions.service';
export * from './metric-definitions';
export * from './metrics.module';
export * from './metrics.service';
export { StepFunnelsService } from './steps/step-funnels.service';
export type { StepFunnelPoint, StepFunnelQuery } from './steps/step-funnels.service';
export { STEP_FORMS, MAX_STEPS, MIN_STEPS, parseSteps } from './steps/funnel-steps';
export { stepFunnelSql } from './steps/step-funnel-reader';
export { FILTER_NAMES } from './events/session-definitions';
export type { FilterName } from './events/session-definitions';
export { COMPARISONS } from './query/metric-query';
export { AB_TEST_FILTERS } from './query/metric-query';
export type { AbTestFilter, MetricWindow } from './query/metric-query';
// The pieces the equivalence suites (test/metrics-*) compare with each other and with SQL.
export { beginFunnelTransaction, insertEvents, lockFunnelAndReadSessions } from './events/event-store';
export type { Sql } from './events/event-store';
export { saveMessages } from './events/message-store';
export { StepKeyNumbers, stepReaches, stepSummaryRowsJson } from './steps/step-marks';
export { writeBatch } from './events/batch-writes';
export { segmentChanges } from './segments/segment-changes';
export { SESSION_COLUMNS, sessionFromRow } from './events/session-row';
export type { SessionRow } from './events/session-row';
export {
  DECLARED_DIMENSIONS,
  SESSION_DIMENSIONS,
  SESSION_ROLLUP_DIMENSIONS,
} from './events/session-definitions';
export { DECLARED_EVENT_DIMENSIONS } from './events/event-definitions';
export type { CountedDimensionName, EventDimensionName } from './events/event-definitions';
export { emptySession, sessionContributions } from './events/session-state';
export { eventRollupDeltas } from './rollups/rollup-deltas';
export type { EventCounts, SessionCounts } from './rollups/rollup-deltas';
export { RollupReader } from './rollups/rollup-reader';
// Every statement the metrics send, as text for review (npm run sql:generate).
export { statementCatalog, statementFiles } from './sql/statement-catalog';
export { EVENT_GRAINS, SESSION_GRAINS } from './time/buckets';
export { weekdayHourSlot } from './time/local-time';
export { FixedOffsetZone } from './time/time-zone';
export { PERIOD_PRESET_NAMES, PERIOD_PRESETS, presetPeriod } from './query/period-presets';
export type { PeriodPreset } from './query/period-presets';
