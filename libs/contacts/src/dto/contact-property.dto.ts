import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PropertyDefinitionView } from '../contact-properties.service';
import {
  MAX_ENUM_OPTION_LENGTH,
  MAX_ENUM_OPTIONS,
  type PropertyDefinitionInput,
} from '../contact-property.input';
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-rules';
import {
  MAX_PROPERTY_DESCRIPTION_LENGTH,
  MAX_PROPERTY_LABEL_LENGTH,
  PROPERTY_TYPES,
  type PropertyType,
} from '../entities/contact-property-definition.entity';

// Swagger schemas; the rules themselves are checked by ContactPropertiesService.

export class UpdatePropertyDefinitionDto implements PropertyDefinitionInput {
  @ApiPropertyOptional({
    enum: PROPERTY_TYPES,
    example: 'enum',
    description:
      'How values are checked and stored: string (text), number (a JSON number; "42" is accepted), ' +
      'boolean (true/false; "true" is accepted), date (YYYY-MM-DD), enum (one of options)',
  })
  type?: PropertyType;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_ENUM_OPTIONS,
    example: ['free', 'pro', 'enterprise'],
    description: `Required for an enum (distinct, at most ${MAX_ENUM_OPTION_LENGTH} characters each); only for an enum`,
  })
  options?: string[];

  @ApiPropertyOptional({
    default: false,
    description:
      'No two contacts of the funnel may hold the same value (409); a unique property can key a batch upsert ' +
      '(upsertBy). Not for booleans.',
  })
  unique?: boolean;

  @ApiPropertyOptional({ maxLength: MAX_PROPERTY_LABEL_LENGTH, example: 'Plan' })
  label?: string;

  @ApiPropertyOptional({
    maxLength: MAX_PROPERTY_DESCRIPTION_LENGTH,
    example: 'The plan the customer pays for',
  })
  description?: string;
}

export class CreatePropertyDefinitionDto extends UpdatePropertyDefinitionDto {
  @ApiProperty({
    example: 'plan',
    maxLength: MAX_CUSTOM_PROPERTY_NAME_LENGTH,
    description:
      'The custom property (as in properties.<name>): letters, digits, _, - or .; not a standard field or a ' +
      'reserved name',
  })
  name: string;

  @ApiProperty({ enum: PROPERTY_TYPES, example: 'enum' })
  declare type: PropertyType;
}

export class PropertyDefinitionDto implements PropertyDefinitionView {
  @ApiProperty({ example: 'plan' }) name: string;
  @ApiProperty({ enum: PROPERTY_TYPES, example: 'enum' }) type: PropertyType;
  @ApiPropertyOptional({ type: [String], example: ['free', 'pro'], description: 'enum only' })
  options?: string[];
  @ApiProperty({ example: false }) unique: boolean;
  @ApiPropertyOptional({ example: 'Plan' }) label?: string;
  @ApiPropertyOptional({ example: 'The plan the customer pays for' }) description?: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class PropertyDefinitionResponse {
  @ApiProperty({ type: PropertyDefinitionDto }) data: PropertyDefinitionDto;
}

export class PropertyDefinitionListResponse {
  @ApiProperty({ type: [PropertyDefinitionDto] }) data: PropertyDefinitionDto[];
}
