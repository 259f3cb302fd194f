import { type Answer, withoutIdsOrTimes } from './citus-answers';
import { runAdmin } from './processes';

/**
 * The admin CLI's commands on the database at `url`, as an operator runs them (`funnelId`: a funnel
 * with automation runs already): a company with its workspace, funnel, collection settings, API key
 * and automation, each created, listed, shown, changed and removed. `mail` reads the development
 * mailbox, not the database, and `citus` has suites of its own. Answers in order.
 */
export async function runAdminTraffic(url: string, funnelId: string, webhook: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const admin = async (...args: string[]) => {
    const result = await runAdmin(args, { DATABASE_URL: url });
    answers.push({ call: `admin ${args.slice(0, 2).join(' ')}`, status: result.code, body: result.json });
    return result.json as Record<string, string> & Record<number, Record<string, unknown>>;
  };
  const company = await admin('company', 'create', '--name', 'Citus Admin', '--subscription', 'sub_citus');
  const companies = await runAdmin(['company', 'list'], { DATABASE_URL: url });
  // Other suites' companies aside: this one's row as the list shows it.
  const listed = (companies.json.data as { id: string }[] | undefined)?.filter((c) => c.id === company.id);
  answers.push({ call: 'admin company list', status: companies.code, body: listed });
  const workspace = await admin('workspace', 'create', '--company', company.id, '--name', 'Admin W');
  const funnel = await admin(
    'funnel',
    'create',
    ...['--workspace', workspace.id, '--name', 'Admin F', '--pages', 'start:Start,done:Done'],
  );
  await admin('funnel', 'collection', '--id', funnel.id, '--enable', '--origins', 'https://admin.example');
  await admin('workspace', 'list', '--company', company.id);
  await admin('funnel', 'list', '--workspace', workspace.id);
  await admin('funnel', 'show', '--id', funnel.id);
  const key = await admin(
    'apikey',
    'create',
    '--company',
    company.id,
    '--permissions',
    'crm:read',
    '--name',
    'k',
  );
  await admin('apikey', 'revoke', '--id', key.id);
  await admin('apikey', 'list', '--company', company.id);
  const automation = await admin(
    'automation',
    'create',
    ...['--funnel', funnel.id, '--on', 'contact.created', '--webhook', webhook, '--secret', 's'.repeat(32)],
  );
  await admin('automation', 'disable', '--id', automation.id);
  await admin('automation', 'enable', '--id', automation.id);
  await admin('automation', 'delete', '--id', automation.id);
  // Runs of contacts written by one statement tie on their times, so their order is the ids': compared
  // as a set, each without its ids.
  const runs = await runAdmin(['automation', 'runs', '--funnel', funnelId, '--limit', '100'], {
    DATABASE_URL: url,
  });
  const shown = ((runs.json.data ?? []) as unknown[]).map((run) => withoutIdsOrTimes(run)).sort();
  answers.push({ call: 'admin automation runs', status: runs.code, body: shown });
  return answers;
}
