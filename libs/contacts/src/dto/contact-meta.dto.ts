import { ApiPropertyOptional } from '@nestjs/swagger';
import { CONTACT_SOURCES } from '../entities/contact.entity';

const dateTime = (description: string) => ({ format: 'date-time', description });

/** meta: service-managed and read-only. */
export class ContactMetaDto {
  @ApiPropertyOptional({ description: 'Detected timezone', example: 'Europe/Berlin' }) ps_timezone?: string;
  @ApiPropertyOptional({
    ...dateTime(
      'When the contact converted (submitted the funnel); set to the creation time for API-created contacts',
    ),
  })
  ps_converted_at?: string;
  @ApiPropertyOptional(dateTime('First known visit')) ps_first_seen_at?: string;
  @ApiPropertyOptional(dateTime('Most recent visit')) ps_last_seen_at?: string;
  @ApiPropertyOptional({
    enum: CONTACT_SOURCES,
    description: 'How the contact entered; external-api for contacts created here',
  })
  ps_source?: string;
  @ApiPropertyOptional({ description: 'Slug of the funnel page where the contact started' })
  ps_start_slug?: string;
  @ApiPropertyOptional({ description: 'Slug of the page where the contact converted' }) ps_end_slug?: string;
  @ApiPropertyOptional({ description: 'URL or title of the start page' }) ps_start_page?: string;
  @ApiPropertyOptional({ description: 'URL or title of the result page' }) ps_result_page?: string;
  @ApiPropertyOptional(dateTime('Last edit through PUT .../values')) ps_user_edited_at?: string;
  @ApiPropertyOptional(dateTime('All required steps completed')) ps_completed_at?: string;
  @ApiPropertyOptional({ description: 'Email verified' }) ps_email_verified?: boolean;
  @ApiPropertyOptional(dateTime('Email verification time')) ps_email_verified_at?: string;
  @ApiPropertyOptional({
    description:
      'The contact unsubscribed from email (an email link or one-click unsubscribe): email automations skip it. Re-subscribing is `PUT …/email-subscription`',
  })
  ps_unsubscribed?: boolean;
  @ApiPropertyOptional(dateTime('When the contact unsubscribed from email')) ps_unsubscribed_at?: string;
  @ApiPropertyOptional({ description: 'Phone verified' }) ps_phone_verified?: boolean;
  @ApiPropertyOptional(dateTime('Phone verification time')) ps_phone_verified_at?: string;
  @ApiPropertyOptional({ description: 'Converted via an embedded funnel' }) ps_embed?: boolean;
  @ApiPropertyOptional({ description: 'A meeting was booked through scheduling tool A' })
  ps_calA_booked?: boolean;
  @ApiPropertyOptional({ description: 'A meeting was booked through scheduling tool B' })
  ps_calB_booked?: boolean;
  @ApiPropertyOptional({ description: 'A meeting was booked through scheduling tool C' })
  ps_calC_booked?: boolean;
  @ApiPropertyOptional({ description: 'A meeting was booked through scheduling tool D' })
  ps_calD_booked?: boolean;
}
