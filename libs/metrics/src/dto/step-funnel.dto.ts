import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MAX_STEPS, MIN_STEPS, STEP_FORMS } from '../steps/funnel-steps';
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
}

export class StepFunnelPointDto {
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

export class StepFunnelResponse {
  @ApiProperty({ type: [StepFunnelPointDto] })
  data: StepFunnelPointDto[];
}
