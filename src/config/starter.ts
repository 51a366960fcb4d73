/**
 * What `appliance-admin config init` writes: the defaults, and each other setting as a commented
 * example. Loaded back, it gives the same settings as no file at all (test/cli/config-file.test.ts).
 * `schema` is the JSON Schema's path, named for editors (yaml-language-server).
 */
export const starterConfig = (schema: string): string => `# yaml-language-server: $schema=${schema}
# appliance-admin dashboard settings. Flags override the environment, which overrides this file.
# Paths may start with ~/; a relative path is beside this file. See: appliance-admin config

# Appliances by name, for --appliance NAME; the default one is used without --url or --appliance.
# A token file holds the bearer token (mode 0600): never put the token itself here.
# default-appliance: prod
# appliances:
#   prod:
#     url: https://appliance.example:8443
#     token-file: ~/.config/appliance-admin/prod.token
#     ca-file: ~/.config/appliance-admin/prod-ca.pem
#     read-only: true
#     # its audit key, from appliance-admin audit key --url … -o FILE, fingerprint compared out of band
#     audit-key: ~/.config/appliance-admin/prod-audit.pem

# The screen to start on (default: the first, overview).
# screen: keys

# Poll interval: ms, s or m, between 200ms and 60m.
refresh: 2s

# dark, light or high-contrast. NO_COLOR, when set, turns colour off whatever this says.
theme: dark

# A new CRIT on the overview while another screen is shown: off, bell (the terminal bell)
# or osc9 (a desktop notification, in terminals that show OSC 9).
# notify: bell

# Where the export dialog's file starts.
# export-folder: ~/exports

# ':' aliases: alias -> screen name or command.
# aliases:
#   k: keys
#   a: audit

# Key bindings: action -> a key or a list of keys ([] unbinds).
# keys:
#   quit: [q, ctrl+c]
#   help: '?'

# Each list's columns (by header, in order) and default sort ("Header asc|desc").
# screens:
#   keys:
#     columns: [Name, Status, Last used]
#     sort: Name desc
`;
