import { MetricDroppedEventMonth } from './metric-dropped-event-month.entity';
import { MetricEvent } from './metric-event.entity';
import { MetricEventRollup } from './metric-event-rollup.entity';
import { MetricMessage } from './metric-message.entity';
import { MetricQuestion } from './metric-question.entity';
import { MetricSession } from './metric-session.entity';
import { MetricSegmentChange } from './metric-segment-change.entity';
import { MetricSegmentFold } from './metric-segment-fold.entity';
import { MetricSegmentRollup } from './metric-segment-rollup.entity';
import { MetricSessionSteps } from './metric-session-steps.entity';
import { MetricStepKey } from './metric-step-key.entity';

export * from './metric-dropped-event-month.entity';
export * from './metric-event.entity';
export * from './metric-event-rollup.entity';
export * from './metric-message.entity';
export * from './metric-question.entity';
export * from './metric-session.entity';
export * from './metric-segment-change.entity';
export * from './metric-segment-fold.entity';
export * from './metric-segment-rollup.entity';
export * from './metric-session-steps.entity';
export * from './metric-step-key.entity';

// Tracking events and their rollups.
export const metricsEntities: Function[] = [
  MetricEvent,
  MetricSession,
  MetricEventRollup,
  MetricQuestion,
  MetricMessage,
  MetricSessionSteps,
  MetricStepKey,
  MetricSegmentRollup,
  MetricSegmentFold,
  MetricSegmentChange,
  MetricDroppedEventMonth,
];
