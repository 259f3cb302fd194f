import { ApiHideProperty, ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { AB_TEST_FILTERS, MAX_PERIOD_DAYS, OFFSET_LIMIT_MINUTES } from '../query/metric-query';

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
}

export class ChartResponse {
  @ApiProperty({ type: [ChartDataPoint] })
  data: ChartDataPoint[];
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
