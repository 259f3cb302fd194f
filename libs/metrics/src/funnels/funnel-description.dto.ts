import { ApiProperty } from '@nestjs/swagger';
import { FUNNEL_STATUSES, type FunnelStatus } from '@app/workspaces';

class FunnelPageView {
  @ApiProperty({
    description: 'The page slug (pageSlug of tracking events, key of page charts)',
    example: 'start',
  })
  slug: string;

  @ApiProperty({ example: 'Welcome' })
  title: string;
}

class FunnelQuestionView {
  @ApiProperty({
    description: 'The question id: insightId of GET .../metrics/insights/{insightId}',
    example: 'question_1',
  })
  questionId: string;

  @ApiProperty({ description: 'The latest title the tracking events gave it', example: 'What is your goal?' })
  title: string;
}

/** Whether the funnel's pages may send visits and leads from browsers (docs/CAPTURING.md). */
export class CollectionSettingsView {
  @ApiProperty({ description: 'On only while at least one origin is allowed', example: true })
  enabled: boolean;

  @ApiProperty({
    type: [String],
    example: ['https://funnel.example.com'],
    description:
      'The origins (https://host[:port]; http://localhost… outside production) whose pages may use the tracker and the lead form',
  })
  allowedOrigins: string[];
}

/** What a person or a model needs to know of a funnel to ask about its contacts and metrics. */
export class FunnelDescription {
  @ApiProperty({ format: 'uuid', description: 'The funnel (campaign) id' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The workspace it belongs to' })
  workspaceId: string;

  @ApiProperty({ example: 'Lead magnet funnel' })
  name: string;

  @ApiProperty({ enum: FUNNEL_STATUSES, description: 'online (published) or offline (not yet live)' })
  status: FunnelStatus;

  @ApiProperty({
    type: [String],
    example: ['lead', 'converted'],
    description: 'The contact statuses a contact of this funnel may have; the first is the default',
  })
  contactStatuses: string[];

  @ApiProperty({
    type: CollectionSettingsView,
    description: 'Browser collection: the tracker and the lead form',
  })
  collection: CollectionSettingsView;

  @ApiProperty({ type: [FunnelPageView], description: 'The pages in funnel order' })
  pages: FunnelPageView[];

  @ApiProperty({
    type: [FunnelQuestionView],
    description:
      'The questions seen in its answer events, by number (question_2 before question_10); a question no event has answered yet is not known',
  })
  questions: FunnelQuestionView[];
}

export class FunnelDescriptionResponse {
  @ApiProperty({ type: FunnelDescription })
  data: FunnelDescription;
}
