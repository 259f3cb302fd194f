import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { READ_ONLY_MESSAGES, type CreateContactInput } from '../contact-input';
import { MAX_LENGTH } from '../contact-rules';

const mustBeString = (name: string) => ({ message: `${name} must be a string` });

/**
 * Type checks and Swagger documentation; the rules themselves (email or phone, formats, lengths,
 * statuses) are checked by ContactsService so every caller gets the same answers.
 */
export class ContactAddressInputDto {
  @ApiPropertyOptional({ maxLength: MAX_LENGTH.postalCode, example: '10115' })
  @IsOptional()
  @IsString(mustBeString('postalCode'))
  postalCode?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.city, example: 'Berlin' })
  @IsOptional()
  @IsString(mustBeString('city'))
  city?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.state, example: 'Berlin' })
  @IsOptional()
  @IsString(mustBeString('state'))
  state?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.country, example: 'Germany' })
  @IsOptional()
  @IsString(mustBeString('country'))
  country?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.street, example: 'Invalidenstraße' })
  @IsOptional()
  @IsString(mustBeString('street'))
  street?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.houseNumber, example: '117' })
  @IsOptional()
  @IsString(mustBeString('houseNumber'))
  houseNumber?: string;
}

export class CreateContactDto implements CreateContactInput {
  @ApiPropertyOptional({
    format: 'email',
    maxLength: MAX_LENGTH.email,
    example: 'ada@example.com',
    description: 'Required when phone is absent; must be a valid address',
  })
  @IsOptional()
  @IsString(mustBeString('email'))
  email?: string;

  @ApiPropertyOptional({
    maxLength: MAX_LENGTH.phone,
    example: '+4915112345678',
    description:
      'Required when email is absent. 3 to 20 digits, optionally a leading + and spaces, dashes, dots, ' +
      'slashes or parentheses; E.164 preferred',
  })
  @IsOptional()
  @IsString(mustBeString('phone'))
  phone?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.firstName, example: 'Ada' })
  @IsOptional()
  @IsString(mustBeString('firstName'))
  firstName?: string;

  @ApiPropertyOptional({ maxLength: MAX_LENGTH.lastName, example: 'Lovelace' })
  @IsOptional()
  @IsString(mustBeString('lastName'))
  lastName?: string;

  @ApiPropertyOptional({
    example: 'lead',
    description: "One of the funnel's configured statuses; defaults to the first one",
  })
  @IsOptional()
  @IsString(mustBeString('status'))
  status?: string;

  @ApiPropertyOptional({ format: 'uri', maxLength: MAX_LENGTH.website, example: 'https://ada.example.com' })
  @IsOptional()
  @IsString(mustBeString('website'))
  website?: string;

  @ApiPropertyOptional({ format: 'date', example: '1815-12-10', description: 'A calendar date, YYYY-MM-DD' })
  @IsOptional()
  @IsString(mustBeString('birthday'))
  birthday?: string;

  @ApiPropertyOptional({ type: ContactAddressInputDto })
  @IsOptional()
  @IsObject({ message: 'address must be an object' })
  @ValidateNested()
  @Type(() => ContactAddressInputDto)
  address?: ContactAddressInputDto;

  @ApiPropertyOptional({
    default: false,
    description: "true skips the automations configured for the contact's creation and initial status",
  })
  @IsOptional()
  @IsBoolean({ message: 'skipAutomationTrigger must be a boolean' })
  skipAutomationTrigger?: boolean;

  // Service-managed members: named here only to refuse them with a clear message.
  @ApiHideProperty()
  @IsEmpty({ message: READ_ONLY_MESSAGES.meta })
  meta?: never;

  @ApiHideProperty()
  @IsEmpty({ message: READ_ONLY_MESSAGES.utmParams })
  utmParams?: never;

  @ApiHideProperty()
  @IsEmpty({ message: READ_ONLY_MESSAGES.properties })
  properties?: never;
}
