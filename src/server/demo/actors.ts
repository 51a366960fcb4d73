import type { Role } from '../../contract/index.js';

/** Who appears in the demo's history: people with workstation or VPN addresses, and services. */
export interface Actor {
  subject: string;
  role: Role;
  ip: string;
  human: boolean;
}

export const ACTORS: Actor[] = [
  { subject: 'alice.martin@northwind.example', role: 'it_admin', ip: '10.20.4.17', human: true },
  { subject: 'ben.okafor@northwind.example', role: 'it_admin', ip: '10.20.4.52', human: true },
  { subject: 'carla.mendes@northwind.example', role: 'app_owner', ip: '10.20.8.31', human: true },
  { subject: 'dmitri.ivanov@northwind.example', role: 'app_owner', ip: '10.20.8.77', human: true },
  { subject: 'erin.walsh@northwind.example', role: 'app_owner', ip: '172.16.40.12', human: true },
  { subject: 'dana.kim@northwind.example', role: 'auditor', ip: '10.20.12.9', human: true },
  { subject: 'reviewer@audit-partner.example', role: 'auditor', ip: '172.16.40.88', human: true },
];

export const SCHEDULER: Actor = { subject: 'svc-ingest-scheduler', role: 'it_admin', ip: '127.0.0.1', human: false };
export const SIEM: Actor = { subject: 'svc-siem-export', role: 'auditor', ip: '10.20.30.5', human: false };
export const IDP_PROBE: Actor = { subject: 'svc-idp-probe', role: 'it_admin', ip: '127.0.0.1', human: false };
export const TERRAFORM: Actor = { subject: 'svc-terraform', role: 'it_admin', ip: '10.20.30.21', human: false };

export const actorFor = (subject: string): Actor =>
  [...ACTORS, SCHEDULER, SIEM, IDP_PROBE, TERRAFORM].find((a) => a.subject === subject) ?? {
    subject,
    role: 'it_admin',
    ip: '10.20.4.17',
    human: true,
  };

export const admins = () => ACTORS.filter((a) => a.human && a.role !== 'auditor');
export const auditors = () => ACTORS.filter((a) => a.role === 'auditor');
