/** `audit`: prove the audit trail complete and unaltered, proofs to carry away, witnesses; rotate-key on the host. */
import { CONNECTION, DATA_DIR } from './shared-options.js';
import type { CommandSpec, OptionSpec } from './spec.js';

const PINNED_KEY: OptionSpec = {
  name: 'key',
  value: 'PEM_FILE',
  completes: 'files',
  description: `the appliance's public key(s) (Ed25519, PEM), obtained out of band: pinned.
Without it, the keys the appliance serves (exit 4)`,
};

const WITNESS: OptionSpec = {
  name: 'witness',
  value: 'W.pub',
  completes: 'files',
  repeatable: true,
  description: `a witness's key (audit witness-key writes it): the checkpoint must carry its
cosignature; give it again for each witness required`,
};

const REMEMBERED = `Every run that reads the appliance checks its checkpoint against the newest one this machine
verified before (kept per appliance key in $XDG_STATE_HOME/appliance-admin, else ~/.local/state/…):
it must extend it (a consistency proof); two signed histories (a fork) are refused and written
down as evidence.`;

/** The verifiers' verdicts (docs/audit-chain.md "Verdicts"): the same from each. */
const VERDICTS = `the same from every verifier (docs/audit-chain.md "Verdicts"):
  0 verified with the pinned key    1 broken, or cannot be proven complete (a finding a line)
  2 bad usage                       3 could not check (the appliance or a file could not be read)
  4 verified, but with the keys the appliance served (not pinned)`;

export const AUDIT: CommandSpec = {
  name: 'audit',
  summary: 'prove the audit trail complete and unaltered; proofs, witnesses, the signing key',
  usage: [],
  description: `The audit trail is a hash chain the appliance signs checkpoints of (docs/audit-chain.md): these
commands check it with the appliance's public key, obtained out of band and pinned with --key.
${REMEMBERED}`,
  subcommands: [
    {
      name: 'verify',
      summary: 'prove an audit export, or the live trail, complete and unaltered',
      usage: [
        'audit verify FILE --key PEM_FILE [--checkpoint FILE] [--since KEPT_FILE]',
        'audit verify --url URL [--token-file FILE] [--key PEM_FILE] [--since KEPT_FILE] [--witness W.pub]…',
      ],
      brief: 'audit verify FILE --key PEM_FILE | --url URL',
      description: `Proves an audit export complete and unaltered against the appliance's signed statement of
what it holds (docs/audit-chain.md): the statement's signature verifies with the key; every line
is the one the appliance wrote and its hash recomputes; the file holds exactly the entries it
signed, linked from the first to the last (or, for a filtered export, with the signed digest).
CSV or JSON Lines, told apart by content; or the copy a syslog receiver wrote of the forwarded
trail (RFC 5424 lines), proven up to the newest signed checkpoint it carries (or the one given with
--checkpoint). With --url, verifies the appliance's live trail: streams its export as it
verifies, and checks every checkpoint it signed before.`,
      arguments: [{ name: 'FILE', completes: 'files' }],
      options: [
        PINNED_KEY,
        {
          name: 'checkpoint',
          value: 'FILE',
          completes: 'files',
          description: `the export's signed statement (default FILE.checkpoint.json, written by export);
for a syslog copy, a checkpoint the appliance signed (default: the newest one
the copy carries that verifies with the key)`,
        },
        {
          name: 'since',
          value: 'KEPT_FILE',
          completes: 'files',
          description: `a checkpoint kept from an earlier walkthrough: it must verify with the key,
and the trail must still hold it unchanged and extend it. With --url and a
checkpoint that carries the tree (a proof file, the state's remembered one),
a consistency proof shows that, and the trail is not read again`,
        },
        {
          ...WITNESS,
          description: `(--url) the newest checkpoint must carry this witness's cosignature
(audit witness); give it again for each witness required`,
        },
        ...CONNECTION,
      ],
      exitStatus: VERDICTS,
      examples: [
        { command: 'audit verify audit.jsonl --key appliance.pem', says: 'an export, against the pinned key' },
        { command: 'audit verify --url https://appliance:8443 --key appliance.pem', says: 'the live trail' },
      ],
    },
    {
      name: 'key',
      summary: "the appliance's public keys into a PEM file, with their fingerprints",
      usage: ['audit key --url URL [--token-file FILE] -o PEM_FILE'],
      brief: 'audit key --url URL -o PEM_FILE',
      description: `Fetches the appliance's public keys into PEM_FILE and prints their fingerprints, to compare
with the one you were given out of band (the deployment screen shows it); then pin it with --key.`,
      options: [
        {
          name: 'output',
          short: 'o',
          value: 'PEM_FILE',
          completes: 'files',
          description: 'where to write the keys; an existing file is not overwritten',
        },
        ...CONNECTION,
      ],
    },
    {
      name: 'fingerprint',
      summary: "a public key's fingerprint, as the screens show it",
      usage: ['audit fingerprint PEM_FILE'],
      description: 'Prints the fingerprints of the keys in a PEM file.',
      arguments: [{ name: 'PEM_FILE', completes: 'files' }],
    },
    {
      name: 'prove',
      summary: 'entries with their inclusion proofs, into a proof file to carry away',
      usage: ['audit prove SEQ… -o FILE [--key PEM_FILE] --url URL [--token-file FILE]'],
      brief: 'audit prove SEQ… -o FILE',
      description: `Writes the entries SEQ… (audit entry numbers) to FILE, each with its inclusion proof in the
appliance's newest signed checkpoint: a proof file an auditor carries away (docs/audit-chain.md,
"Proof files").`,
      arguments: [{ name: 'SEQ…', completes: 'none' }],
      options: [
        PINNED_KEY,
        {
          name: 'output',
          short: 'o',
          value: 'FILE',
          completes: 'files',
          description: 'where to write; an existing file is not overwritten',
        },
        ...CONNECTION,
      ],
    },
    {
      name: 'sample',
      summary: 'N entries drawn at random, with their proofs',
      usage: ['audit sample N --since 90d -o DIR [--seed HEX] [--key PEM_FILE] --url URL [--token-file FILE]'],
      brief: 'audit sample N --since 90d -o DIR',
      description: `Draws N entries at random from those written since --since, from a seed it states (a new
random one, or --seed), and writes them with their proofs to DIR/sample.proof.json and a
readable list to DIR/sample.txt, with how many entries they were drawn from.`,
      arguments: [{ name: 'N', completes: 'none' }],
      options: [
        {
          name: 'since',
          value: 'WHEN',
          description: 'draw from the entries written since then: 90d, 12h, or an RFC 3339 time',
        },
        { name: 'seed', value: 'HEX', description: 'draw from this seed (32 to 128 hex digits) to repeat a sample' },
        PINNED_KEY,
        {
          name: 'output',
          short: 'o',
          value: 'DIR',
          completes: 'dirs',
          description: 'where to write; DIR must be new or empty',
        },
        ...CONNECTION,
      ],
    },
    {
      name: 'verify-proof',
      summary: 'check a proof file offline',
      usage: ['audit verify-proof FILE --key PEM_FILE [--witness W.pub]…'],
      description: `Checks a proof file offline: the checkpoint's signed note with the key, each entry's hash and
its inclusion proof (about log2(n) hashes), and a sample's draw from its seed.`,
      arguments: [{ name: 'FILE', completes: 'files' }],
      options: [PINNED_KEY, WITNESS],
    },
    {
      name: 'witness',
      summary: 'cosign the newest checkpoint when it extends what this witness saw',
      usage: ['audit witness --url URL [--token-file FILE] --key PEM_FILE --witness-key FILE'],
      brief: 'audit witness --url URL --key PEM_FILE --witness-key FILE',
      description: `A witness (docs/audit-chain.md, "Witnesses") cosigns the appliance's newest checkpoint only when a
consistency proof shows it extends the last checkpoint this witness cosigned for that appliance,
and hands the cosignature to the appliance, which serves it with the checkpoint from then on.
Verifiers that require the witness (audit verify --witness FILE.pub) then know that the history
they are shown is the one the witness saw. A checkpoint that does not extend it is a fork: refused,
named, and both signed checkpoints written as evidence (in the state directory's forks/).`,
      options: [
        {
          ...PINNED_KEY,
          description: "the appliance's public key(s), obtained out of band (required: a witness pins)",
        },
        {
          name: 'witness-key',
          value: 'FILE',
          completes: 'files',
          description: "the witness's private key (from witness-key)",
        },
        ...CONNECTION,
      ],
      exitStatus: `0 cosigned, 1 refused (a fork, or a checkpoint older than the one cosigned before),
2 bad usage, 3 could not check (the appliance could not be read).`,
    },
    {
      name: 'witness-key',
      summary: 'make a witness key',
      usage: ['audit witness-key --name NAME -o FILE'],
      description: `Makes a witness key: FILE (private, mode 0600) and FILE.pub, the line to hand to verifiers.
NAME names the witness (no spaces, no "+"), e.g. witness.example.com/audit.`,
      options: [
        { name: 'name', value: 'NAME', description: "the witness's name, e.g. witness.example.com/audit" },
        {
          name: 'output',
          short: 'o',
          value: 'FILE',
          completes: 'files',
          description: 'the private key; FILE.pub beside it',
        },
      ],
      exitStatus: '0 written, 2 bad usage.',
    },
    {
      name: 'rotate-key',
      summary: 'on the host: a new audit signing key',
      usage: ['audit rotate-key --data DIR'],
      description: `Replaces the key the appliance signs audit checkpoints with (in DIR, on this host; it may run
beside the server). The old public key stays listed, retired, so that its checkpoints still
verify. Audited (audit.key.rotate) with the user running the command as actor, and the entry is
at once covered by a checkpoint signed with the new key.`,
      options: [DATA_DIR],
      exitStatus: '0 rotated, 1 the data directory could not be used, 2 bad usage.',
    },
  ],
  exitStatus: VERDICTS,
};
