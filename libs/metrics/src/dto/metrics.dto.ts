import { ApiHideProperty, ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { BREAKDOWN_KEYS, NONE_KEY, OTHER_KEY } from '../catalog/kpi-figures';
import { FILTER_NAMES, FilterName } from '../events/session-definitions';
import { AB_TEST_FILTERS, COMPARISONS, MAX_PERIOD_DAYS, OFFSET_LIMIT_MINUTES } from '../query/metric-query';

const FROM = {
  description:
    "Start of the period (inclusive), ISO 8601. A date-time without zone, or a date alone, is read in the caller's time zone (`timezone` or `offset`). Must be before `to`; the period is at most " +
    `${MAX_PERIOD_DAYS} days.`,
  example: '2025-01-01T00:00:00Z',
};
const TO = {
  description:
    "End of the period (inclusive, to the millisecond), ISO 8601. A date alone means the end of that day in the caller's time zone (`timezone` or `offset`).",
  example: '2025-01-31T23:59:59.999Z',
};
const OFFSET = {
  description: `Time zone offset in minutes with optional leading + or -, as JavaScript's Date.getTimezoneOffset(): local time = UTC − offset (-120 is UTC+2, 330 is UTC−5:30). From -${OFFSET_LIMIT_MINUTES} to ${OFFSET_LIMIT_MINUTES}; default 0. Used for local days, hours and weekdays. Not together with \`timezone\`.`,
  example: '-120',
};
const TIMEZONE = {
  description:
    "Time zone by IANA name, the alternative to `offset` (giving both is a 400): local days, hours and weekdays follow the zone's rules, daylight saving included, so a local day is 23 or 25 hours long when the clocks change. A local time that occurs twice (clocks turned back) is its earlier instant; one that never occurs (clocks turned forward) is read with the offset before the change. An unknown name is a 400.",
  example: 'Europe/Berlin',
};

/**
 * Query parameters of the KPI and insight routes. Only their type is checked here; MetricsService
 * checks their meaning, so REST and MCP callers get the same errors (abTest is accepted here only
 * to be refused there with its own message).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class MetricsQueryDto {
  @ApiProperty(FROM)
  @IsOptional()
  @IsString()
  from?: string;

  @ApiProperty(TO)
  @IsOptional()
  @IsString()
  to?: string;

  @ApiPropertyOptional(OFFSET)
  @IsOptional()
  @IsString()
  offset?: string;

  @ApiPropertyOptional(TIMEZONE)
  @IsOptional()
  @IsString()
  timezone?: string;

  @ApiHideProperty()
  @IsOptional()
  @IsString()
  abTest?: string;

  @ApiPropertyOptional({
    enum: FILTER_NAMES,
    description: `KPIs over sessions or page views only (400 elsewhere): the KPI per value of that session attribute, at most ${BREAKDOWN_KEYS} keys plus "${OTHER_KEY}" and "${NONE_KEY}".`,
  })
  @IsOptional()
  @IsString()
  breakdown?: string;

  @ApiPropertyOptional({
    enum: COMPARISONS,
    description:
      'Charts and KPIs (400 on insights): previous_period adds previousValue (and previousRelativeValue on chart points with a relativeValue) over the period of the same length in local time just before `from`.',
  })
  @IsOptional()
  @IsString()
  compare?: string;
}

// The filters, one query parameter per filter attribute of the session declarations, typed and
// decorated from that list rather than written out once more.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface MetricsQueryDto extends Partial<Record<FilterName, string | string[]>> {}
for (const name of FILTER_NAMES) {
  ApiPropertyOptional({
    type: [String],
    description: `Only the sessions whose ${name} is one of these values (repeat the parameter for several; an unknown value matches nothing); for charts and KPIs over page views or clicks, the events of those sessions. A figure that counts no sessions (contacts, messages) refuses it with a 400.`,
  })(MetricsQueryDto.prototype, name);
  IsOptional()(MetricsQueryDto.prototype, name);
  IsString({ each: true })(MetricsQueryDto.prototype, name);
}

/** Query parameters of the chart route: those of every metric route plus a documented abTest. */
export class ChartQueryDto extends OmitType(MetricsQueryDto, ['abTest'] as const) {
  @ApiPropertyOptional({
    enum: AB_TEST_FILTERS,
    description:
      'Only for chart_page_to_page_conversion_rate (400 on any other chart): all (default, no filter), original or variant (sessions whose session_start carried that abVariant).',
  })
  @IsOptional()
  @IsString()
  abTest?: string;
}

export class ChartDataPoint {
  @ApiProperty({
    description: 'Identifier or label: time slot, device, page slug, utm source or button id',
    example: 'start',
  })
  key: string;

  @ApiProperty({
    description: 'Count (sessions, page views, contacts, clicks) or duration in seconds',
    example: 120,
  })
  value: number;

  @ApiPropertyOptional({
    description: 'Display name (page title, weekday and hour, button label)',
    example: 'Welcome',
  })
  name?: string;

  @ApiPropertyOptional({ description: 'Ratio between 0 and 1 (4 decimals)', example: 0.75 })
  relativeValue?: number;

  @ApiPropertyOptional({
    description:
      'With compare=previous_period: the value of the same point (same key; for daily or monthly points the same position) in the previous period, 0 when it has none',
    example: 96,
  })
  previousValue?: number;

  @ApiPropertyOptional({
    description:
      'With compare=previous_period, on points that have a relativeValue: its value in the previous period',
    example: 0.7,
  })
  previousRelativeValue?: number;
}

export class ChartResponse {
  @ApiProperty({ type: [ChartDataPoint] })
  data: ChartDataPoint[];
}

export class KpiBreakdownEntry {
  @ApiProperty({ description: 'The attribute value, "(other)" or "(none)"', example: 'google' })
  key: string;

  @ApiProperty({ description: 'The KPI over the sessions of this key', example: 12.5 })
  value: number;

  @ApiProperty({
    description: 'The KPI’s count over those sessions (its value for a KPI without a count)',
    example: 80,
  })
  count: number;
}

export class KpiResult {
  @ApiProperty({ description: 'camelCase of the subtype', example: 'kpiConversionRate' })
  type: string;

  @ApiProperty({
    description: 'The figure: a count, a percentage 0–100 or seconds (2 decimals)',
    example: 12.5,
  })
  value: number;

  @ApiPropertyOptional({ description: 'For rates and means: the denominator', example: 240 })
  count?: number;

  @ApiPropertyOptional({
    description: 'With compare=previous_period: the value over the previous period of the same length',
    example: 11.2,
  })
  previousValue?: number;

  @ApiPropertyOptional({
    type: () => [KpiBreakdownEntry],
    description: `With breakdown: the KPI per value of the attribute, largest count first, at most ${BREAKDOWN_KEYS} keys, then "${OTHER_KEY}" (the other keys together) and "${NONE_KEY}" (sessions without the attribute). Each value is computed as the KPI's over that key's sessions; the counts add up to the KPI's count (its value when it has none).`,
  })
  breakdown?: KpiBreakdownEntry[];
}

export class KpiResponse {
  @ApiProperty({ type: KpiResult })
  data: KpiResult;
}

export class InsightResult {
  @ApiProperty({ description: 'Latest title of the question', example: 'What is your goal?' })
  title: string;

  @ApiProperty({
    description: 'Sessions per answer (a session choosing several answers counts for each)',
    example: { 'More leads': 3, 'Better conversion': 2 },
    type: 'object',
    additionalProperties: { type: 'number' },
  })
  answers: Record<string, number>;

  @ApiProperty({
    description: 'Sessions per combination of answers, joined by "; "',
    example: { 'More leads; Better conversion': 2, 'More leads': 1 },
    type: 'object',
    additionalProperties: { type: 'number' },
  })
  groupedAnswers: Record<string, number>;
}

export class InsightResponse {
  @ApiProperty({ type: InsightResult })
  data: InsightResult;
}
