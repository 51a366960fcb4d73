/**
 * Text of the demo's document sources: small, plausible company files. Everything here is made
 * up for the demo; names of people and companies are fictional.
 */

const policy = (title: string, owner: string, sections: [string, string][]) =>
  `# ${title}\n\nOwner: ${owner}\nReview cycle: annual\nClassification: internal\n\n` +
  sections.map(([h, body]) => `## ${h}\n\n${body}\n`).join('\n');

/** HR share: policies, handbooks, meeting notes (relative path -> text). */
export function hrShareFiles(): Record<string, string> {
  return {
    'policies/annual-leave.md': policy('Annual leave policy', 'People Operations', [
      [
        'Entitlement',
        'Full-time employees accrue 25 working days of paid leave per calendar year, pro rata for part-time contracts.',
      ],
      [
        'Requesting leave',
        'Submit requests in the HR portal at least two weeks ahead for absences longer than three days.',
      ],
      ['Carry-over', 'Up to five unused days may be carried into the first quarter of the following year.'],
    ]),
    'policies/travel-and-expenses.md': policy('Travel and expenses', 'Finance', [
      ['Booking', 'Book rail for trips under four hours. Flights need line-manager approval before booking.'],
      ['Allowances', 'Meals are reimbursed up to the local per-diem rate. Keep itemised receipts.'],
      [
        'Claims',
        'File claims within 30 days of return using the expense tool; claims older than 90 days are not paid.',
      ],
    ]),
    'policies/remote-work.md': policy('Remote and hybrid work', 'People Operations', [
      ['Eligibility', 'Roles marked hybrid may work remotely up to three days a week by agreement with the team lead.'],
      ['Equipment', 'The company provides a laptop, headset and one external monitor. Report loss within 24 hours.'],
      ['Security', 'Use the VPN on untrusted networks and lock the screen when stepping away.'],
    ]),
    'policies/code-of-conduct.md': policy('Code of conduct', 'Legal', [
      ['Respect', 'We treat colleagues, customers and partners with respect. Harassment of any kind is not tolerated.'],
      ['Conflicts of interest', 'Declare outside roles or investments that could influence business decisions.'],
      ['Speaking up', 'Concerns can be raised with a manager, HR or anonymously through the ethics line.'],
    ]),
    'policies/data-protection.md': policy('Data protection and privacy', 'Data Protection Officer', [
      [
        'Principles',
        'Collect only the personal data a task needs and keep it no longer than the retention schedule allows.',
      ],
      ['Access', 'Access to personal data follows the least-privilege role model and is reviewed quarterly.'],
      [
        'Incidents',
        'Report suspected breaches to the DPO immediately; the 72-hour notification clock starts at discovery.',
      ],
    ]),
    'policies/information-security.md': policy('Information security policy', 'CISO', [
      ['Classification', 'Information is public, internal, confidential or restricted. Label documents accordingly.'],
      ['Passwords', 'Use the password manager and multi-factor authentication for every company account.'],
      ['Devices', 'Only managed devices may connect to internal systems.'],
    ]),
    'policies/parental-leave.md': policy('Parental leave', 'People Operations', [
      ['Entitlement', 'Birth and adoptive parents receive 16 weeks of paid leave, to be taken within 12 months.'],
      ['Return to work', 'A phased return over four weeks is available on request.'],
    ]),
    'handbooks/employee-handbook.md':
      '# Employee handbook\n\nWelcome to Northwind Analytics. This handbook explains how we work.\n\n' +
      '## Working hours\nCore hours are 10:00 to 15:00. Record overtime in the time-tracking tool.\n\n' +
      '## Benefits\nHealth insurance, a pension plan with 5% matching, and a yearly learning budget of 1,500 EUR.\n\n' +
      '## Who to ask\nHR questions: hr@northwind.example. IT help: the IT helpdesk channel or ext. 4400.\n',
    'handbooks/manager-handbook.md':
      '# Manager handbook\n\n## One-to-ones\nHold a one-to-one with each direct report at least every two weeks.\n\n' +
      '## Performance reviews\nReviews run in March and September. Calibrate ratings with peer managers before sharing.\n\n' +
      '## Hiring\nOpen roles need an approved headcount request. Use the structured interview kit.\n',
    'handbooks/onboarding-checklist.md':
      '# Onboarding checklist\n\n- [ ] Laptop and accounts ready before day one\n- [ ] Buddy assigned\n' +
      '- [ ] Security awareness training in week one\n- [ ] Meet the team lead and skip-level manager\n' +
      '- [ ] 30-60-90 day goals agreed\n',
    'handbooks/offboarding-checklist.md':
      '# Offboarding checklist\n\n- [ ] Return hardware\n- [ ] Revoke access on the last day\n' +
      '- [ ] Knowledge transfer notes filed\n- [ ] Exit interview scheduled\n',
    'forms/expense-claim-guide.txt':
      'Expense claim guide\n\n1. Photograph the receipt.\n2. Choose the cost centre.\n3. Attach the approval e-mail for travel.\n',
    ...meetingNotes(
      'meeting-notes',
      'People Operations weekly',
      ['Priya Nair', 'Tom Becker', 'Lena Vogel', 'Marco Rossi'],
      [
        'benefits renewal',
        'engagement survey results',
        'hiring pipeline for Q4',
        'new hybrid work pilot',
        'training budget usage',
        'leave policy questions',
        'performance review calendar',
      ],
    ),
  };
}

/** Engineering share: runbooks, architecture notes, meeting notes. */
export function engineeringShareFiles(): Record<string, string> {
  const runbook = (service: string, steps: string[]) =>
    `# Runbook: ${service}\n\nOn-call: platform team\n\n## Steps\n${steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}\n`;
  return {
    'runbooks/database-failover.md': runbook('PostgreSQL failover', [
      'Confirm the primary is unreachable from two availability zones.',
      'Promote the standby with the failover script.',
      'Update the connection string secret and restart the API pods.',
      'Open an incident and notify #ops.',
    ]),
    'runbooks/certificate-renewal.md': runbook('TLS certificate renewal', [
      'Check expiry dates in the monitoring dashboard.',
      'Request the new certificate from the internal CA.',
      'Deploy to the load balancer during the change window.',
      'Verify the chain with openssl s_client.',
    ]),
    'runbooks/disk-pressure.md': runbook('Disk pressure on build agents', [
      'Identify the agent from the alert.',
      'Prune old container images.',
      'If usage stays above 90%, drain the agent.',
    ]),
    'runbooks/vpn-outage.md': runbook('VPN outage', [
      'Check the VPN concentrator status page.',
      'Fail over to the secondary concentrator.',
      'Post an update in the IT status channel.',
    ]),
    'architecture/overview.md':
      '# Platform architecture overview\n\nServices run on a three-node Kubernetes cluster behind an internal load balancer.\n' +
      'State lives in PostgreSQL and object storage. The AI appliance serves internal assistants over the gateway.\n',
    'architecture/adr/0001-use-postgresql.md':
      '# ADR 0001: Use PostgreSQL\n\nStatus: accepted\n\nWe use PostgreSQL for transactional data.\n',
    'architecture/adr/0002-event-bus.md':
      '# ADR 0002: Event bus\n\nStatus: accepted\n\nDomain events go through a managed message broker.\n',
    'architecture/adr/0003-ai-gateway.md':
      '# ADR 0003: On-premises AI gateway\n\nStatus: accepted\n\nAssistants call models only through the appliance gateway, with one key per application.\n',
    'onboarding/dev-environment.md':
      '# Developer environment\n\nInstall the toolchain with the bootstrap script, then run the tests.\n',
    ...meetingNotes(
      'meeting-notes',
      'Platform sync',
      ['Ana Silva', 'Jonas Berg', 'Wei Zhang', 'Fatima Ali'],
      [
        'cluster upgrade plan',
        'incident review: queue backlog',
        'cost report',
        'gateway key rotation',
        'observability roadmap',
        'on-call rota changes',
      ],
    ),
  };
}

/** Office-suite export: documents, spreadsheets as CSV, presentation outlines, calendar. */
export function officeExportFiles(): Record<string, string> {
  return {
    'Documents/Strategy/2025 strategy memo.txt':
      'Strategy memo 2025\n\nFocus areas: customer retention, automation of month-end close, internal AI assistants.\n',
    'Documents/Strategy/Board update Q3.txt':
      'Board update, third quarter\n\nRevenue on plan; hiring slightly behind; two key renewals signed.\n',
    'Documents/Legal/Contract template - services.txt':
      'Master services agreement (template)\n\n1. Scope\n2. Fees\n3. Term and termination\n',
    'Documents/Legal/NDA template.txt':
      'Mutual non-disclosure agreement (template)\n\nConfidential information excludes public knowledge.\n',
    'Spreadsheets/Headcount plan.csv':
      'department,q1,q2,q3,q4\nEngineering,42,44,47,50\nSales,18,19,21,22\nFinance,9,9,10,10\nHR,6,6,7,7\n',
    'Spreadsheets/Marketing budget.csv':
      'channel,budget_eur,spent_eur\nEvents,120000,87000\nSearch,90000,71000\nContent,40000,29500\n',
    'Presentations/All-hands October - outline.txt': 'All-hands, October\n\n- Results\n- Customer stories\n- Q&A\n',
    'Presentations/Sales kickoff - outline.txt': 'Sales kickoff\n\n- Targets\n- New pricing\n- Partner programme\n',
    'Calendar/company-events.ics':
      'BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Northwind//Demo//EN\nBEGIN:VEVENT\nUID:allhands-1@northwind.example\n' +
      'DTSTART:20251030T150000Z\nSUMMARY:All-hands\nEND:VEVENT\nEND:VCALENDAR\n',
  };
}

const COMPANIES = [
  'Contoso Retail',
  'Fabrikam Logistics',
  'Tailspin Toys',
  'Wide World Importers',
  'Adatum Health',
  'Litware Software',
  'Proseware Finance',
  'Woodgrove Energy',
  'Coho Vineyards',
  'Alpine Ski House',
  'Blue Yonder Airlines',
  'Humongous Insurance',
  'Lucerne Publishing',
  'Margie Travel',
  'Northwind Traders',
  'Relecloud Media',
  'Trey Research',
  'VanArsdel Foods',
  'Wingtip Sports',
  'Graphic Design Institute',
];
export const COUNTRIES = ['DE', 'FR', 'NL', 'AT', 'CH', 'SE', 'IT', 'ES', 'GB', 'PL'];

/** CRM export: accounts, contacts, opportunities, activities. */
export function crmExportFiles(): Record<string, string> {
  const accounts = COMPANIES.map(
    (name, i) =>
      `ACC-${1001 + i},${name},${COUNTRIES[i % COUNTRIES.length]},${['enterprise', 'mid-market', 'smb'][i % 3]}`,
  );
  const first = ['Anna', 'Ben', 'Chloe', 'David', 'Elif', 'Felix', 'Greta', 'Hugo', 'Ines', 'Jan'];
  const last = ['Schmidt', 'Dubois', 'de Vries', 'Huber', 'Keller', 'Lindqvist', 'Bianchi', 'Garcia', 'Smith', 'Nowak'];
  const contacts = COMPANIES.flatMap((_, i) =>
    [0, 1].map((j) => {
      const f = first[(i + j * 3) % first.length],
        l = last[(i * 7 + j) % last.length];
      return `CON-${2001 + i * 2 + j},ACC-${1001 + i},${f} ${l},${f.toLowerCase()}.${l.toLowerCase().replace(/\s/g, '')}@example.com`;
    }),
  );
  const stages = ['prospecting', 'qualification', 'proposal', 'negotiation', 'closed-won', 'closed-lost'];
  const opportunities = COMPANIES.slice(0, 14).map((_, i) => ({
    id: `OPP-${3001 + i}`,
    account_id: `ACC-${1001 + i}`,
    stage: stages[i % stages.length],
    amount_eur: 15000 + ((i * 7919) % 90) * 1000,
    close_date: `2025-${String((i % 12) + 1).padStart(2, '0')}-28`,
  }));
  const activities = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({
      id: `ACT-${4001 + i}`,
      account_id: `ACC-${1001 + (i % COMPANIES.length)}`,
      type: ['call', 'email', 'meeting'][i % 3],
      date: `2025-10-${String((i % 28) + 1).padStart(2, '0')}`,
    }),
  );
  return {
    'accounts.csv': 'account_id,name,country,segment\n' + accounts.join('\n') + '\n',
    'contacts.csv': 'contact_id,account_id,name,email\n' + contacts.join('\n') + '\n',
    'opportunities.json': JSON.stringify(opportunities, null, 2) + '\n',
    'activities/2025-10.jsonl': activities.join('\n') + '\n',
    'README.txt': 'Nightly CRM export. Files are replaced each night at 02:00.\n',
  };
}

/** Accounting export: chart of accounts, vendors, invoices per quarter, journal. */
export function accountingExportFiles(): Record<string, string> {
  const chart = [
    '1000,Cash,asset',
    '1200,Accounts receivable,asset',
    '1500,Equipment,asset',
    '2000,Accounts payable,liability',
    '2100,VAT payable,liability',
    '3000,Share capital,equity',
    '4000,Revenue - licences,revenue',
    '4100,Revenue - services,revenue',
    '6000,Salaries,expense',
    '6100,Rent,expense',
    '6200,Cloud services,expense',
    '6300,Travel,expense',
  ];
  const invoices = (q: number) =>
    'invoice_no,customer,issued,due,net_eur,vat_eur,status\n' +
    Array.from({ length: 18 }, (_, i) => {
      const n = q * 100 + i + 1,
        net = 1200 + ((n * 3571) % 40) * 250;
      const month = (q - 1) * 3 + 1 + (i % 3);
      return (
        `INV-2025-${String(n).padStart(4, '0')},${COMPANIES[n % COMPANIES.length]},2025-${String(month).padStart(2, '0')}-${String((i % 27) + 1).padStart(2, '0')},` +
        `2025-${String(Math.min(month + 1, 12)).padStart(2, '0')}-${String((i % 27) + 1).padStart(2, '0')},${net},${Math.round(net * 0.19)},${i % 5 === 0 ? 'open' : 'paid'}`
      );
    }).join('\n') +
    '\n';
  return {
    'chart-of-accounts.csv': 'account,name,type\n' + chart.join('\n') + '\n',
    'vendors.json':
      JSON.stringify(
        ['Cloudline Hosting', 'Office Supplies GmbH', 'Rail & Fly Travel', 'Northwind Property'].map((name, i) => ({
          id: `VEN-${501 + i}`,
          name,
        })),
        null,
        2,
      ) + '\n',
    'invoices/2025-Q1.csv': invoices(1),
    'invoices/2025-Q2.csv': invoices(2),
    'invoices/2025-Q3.csv': invoices(3),
    'journal/2025-09-general-ledger.csv':
      'date,account,debit_eur,credit_eur,memo\n2025-09-30,6000,184000,0,September payroll\n2025-09-30,1000,0,184000,September payroll\n2025-09-01,6100,22000,0,Office rent\n2025-09-01,1000,0,22000,Office rent\n',
  };
}

function meetingNotes(dir: string, meeting: string, people: string[], topics: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  topics.forEach((topic, i) => {
    const month = 4 + i,
      day = 7 + ((i * 5) % 20);
    const date = `2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    out[`${dir}/2025/${date}-${topic.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.md`] =
      `# ${meeting}: ${topic}\n\nDate: ${date}\nAttendees: ${people.join(', ')}\n\n## Notes\n` +
      `- Discussed ${topic}; ${people[i % people.length]} presented the current status.\n- Agreed next steps and owners.\n\n` +
      `## Actions\n- ${people[(i + 1) % people.length]}: follow up by next meeting.\n`;
  });
  return out;
}
