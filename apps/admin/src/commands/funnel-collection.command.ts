import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { trackerScript } from '@app/collection';
import { ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { printResult } from '../output';
import { list, required } from './options';

interface FunnelCollectionOptions {
  id?: string;
  enable?: boolean;
  disable?: boolean;
  origins?: string[];
}

@SubCommand({
  name: 'collection',
  description:
    'Turn browser collection (tracker, lead form) on or off and set the allowed origins; prints the settings and the tracker tag',
})
export class FunnelCollectionCommand extends CommandRunner {
  constructor(private readonly funnels: FunnelsService) {
    super();
  }

  async run(_: string[], options: FunnelCollectionOptions): Promise<void> {
    const funnelId = required(options.id, '--id');
    const change: Record<string, unknown> = {};
    if (options.enable && options.disable)
      throw new ValidationError('--enable and --disable exclude each other');
    if (options.enable || options.disable) change.enabled = !!options.enable;
    if (options.origins !== undefined) change.allowedOrigins = options.origins;
    const collection = await this.funnels.changeCollection(null, funnelId, change);
    const tracker = trackerScript();
    printResult({
      collection,
      tag: `<script defer src="{base}/tracker.js" data-funnel="${funnelId.toLowerCase()}"></script>`,
      pinnedTag: `<script defer src="{base}/tracker/${tracker.versionedFile}" integrity="${tracker.integrity}" crossorigin="anonymous" data-funnel="${funnelId.toLowerCase()}"></script>`,
    });
  }

  @Option({ flags: '--id <funnelId>', description: 'funnel id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({ flags: '--enable', description: 'turn collection on (needs an allowed origin)' })
  parseEnable(): boolean {
    return true;
  }

  @Option({ flags: '--disable', description: 'turn collection off' })
  parseDisable(): boolean {
    return true;
  }

  @Option({
    flags: '--origins <list>',
    description:
      'allowed origins, comma-separated (https://host[:port]; http://localhost… outside production); "" for none',
  })
  parseOrigins(value: string): string[] {
    return value.trim() ? list(value) : [];
  }
}
