import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import type { UpdateContactValueInput } from '../contact-input';
import { MAX_PROPERTY_VALUE_LENGTH, RESERVED_FIELDS, STANDARD_FIELDS } from '../contact-rules';

export class UpdateContactValueDto implements UpdateContactValueInput {
  @ApiProperty({
    example: 'status',
    description:
      `A standard field (${STANDARD_FIELDS.join(', ')}; zip is accepted as an alias of postalCode; ` +
      'matched whatever the case) or a custom property name of 1 to 64 letters, digits, _, - or . . ' +
      `Reserved names are refused with 400: ${RESERVED_FIELDS.filter((f) => f !== '__proto__').join(', ')} ` +
      'and anything starting with ps_.',
  })
  @IsDefined({ message: 'fieldName is required' })
  @IsString({ message: 'fieldName must be a string' })
  @IsNotEmpty({ message: 'fieldName is required' })
  fieldName: string;

  @ApiProperty({
    example: 'converted',
    description:
      'The new value (trimmed). email must be a valid address, status one of the funnel statuses, ' +
      'website a URL, birthday YYYY-MM-DD. An empty string clears a standard field (not status; email ' +
      `and phone not both). Custom property values are stored as strings, at most ${MAX_PROPERTY_VALUE_LENGTH} characters.`,
  })
  @IsDefined({ message: 'value is required' })
  @IsString({ message: 'value must be a string' })
  value: string;

  @ApiPropertyOptional({
    default: false,
    description: 'true skips the automations this change would trigger',
  })
  @IsOptional()
  @IsBoolean({ message: 'skipAutomationTrigger must be a boolean' })
  skipAutomationTrigger?: boolean;
}
