import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { EXACT_PROBLEM, MAX_STEPS, MIN_STEPS, STEP_FORMS } from '../steps/funnel-steps';
import { MetricsQueryDto } from './metrics.dto';

/** Query of the step funnel route: the period, time zone and filters of every metric, the steps and the window. */
export class StepFunnelQueryDto extends OmitType(MetricsQueryDto, [
  'abTest',
  'breakdown',
  'compare',
] as const) {
  @ApiProperty({
    description: `${MIN_STEPS} to ${MAX_STEPS} steps in order, separated by commas, each one of ${STEP_FORMS.map((f) => `\`${f}\``).join(', ')}.`,
    example: 'page:welcome,page:quiz,conversion',
  })
  @IsOptional()
  @IsString()
  steps?: string;

  @ApiPropertyOptional({
    description:
      'ISO 8601 duration (weeks, days, hours, minutes, seconds): every step must be reached at most this long after the session started. Default: the length of the period.',
    example: 'P7D',
  })
  @IsOptional()
  @IsString()
  within?: string;

  @ApiPropertyOptional({
    description:
      'true: count every session of the period, however many (slower on busy funnels). Default false: a period with more sessions than the server reads whole (50,000 unless configured) is estimated from a uniform sample of its sessions, and `meta` says so.',
    enum: ['true', 'false'],
    example: 'false',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: EXACT_PROBLEM })
  exact?: string;
}

class StepFunnelPointDto {
  @ApiProperty({ description: 'The step as asked', example: 'page:quiz' })
  step: string;

  @ApiProperty({ description: 'Sessions that reached this step after the ones before', example: 640 })
  value: number;

  @ApiProperty({
    description: 'value ÷ the previous step’s value (4 decimals; 1 for the first step)',
    example: 0.64,
  })
  relativeValue: number;

  @ApiPropertyOptional({
    description:
      'From the second step: median seconds from reaching the previous step to reaching this one (2 decimals)',
    example: 12.5,
  })
  medianSecondsFromPrevious?: number;
}

class StepFunnelMetaDto {
  @ApiProperty({
    description:
      'true when every session of the period was read; false when the values are estimated from a uniform sample of the sessions',
    example: true,
  })
  exact: boolean;

  @ApiProperty({
    description: 'sampledSessions ÷ sessions (4 decimals): 1 when exact',
    example: 1,
  })
  sampleRate: number;

  @ApiProperty({
    description: 'Sessions that started in the period and match the filters (counted exactly either way)',
    example: 1000,
  })
  sessions: number;

  @ApiProperty({
    description:
      'Sessions read: all of them when exact, else the sample. Each value is then the sample’s count × sessions ÷ sampledSessions, rounded; relativeValue and the medians are the sample’s',
    example: 1000,
  })
  sampledSessions: number;
}

export class StepFunnelResponse {
  @ApiProperty({ type: [StepFunnelPointDto] })
  data: StepFunnelPointDto[];

  @ApiProperty({ type: StepFunnelMetaDto })
  meta: StepFunnelMetaDto;
}
