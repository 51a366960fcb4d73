/**
 * The completion scripts `appliance-admin completion SHELL` prints. Each is small: it hands the
 * words typed so far to `appliance-admin __complete` (completion.ts walks the command table) and
 * offers what comes back, a candidate a line (`VALUE<TAB>DESCRIPTION`), the last line `:files`,
 * `:dirs` or `:` for what the shell completes itself. The program called is the one being
 * completed (the first word), so a copy run by its path completes from its own table.
 */
import type { SHELLS } from './command-table/completion.js';

const PROGRAM = 'appliance-admin';

const BASH = `# bash completion for ${PROGRAM} (made by: ${PROGRAM} completion bash)
_appliance_admin() {
    local cur=\${COMP_WORDS[COMP_CWORD]} out line last value
    COMPREPLY=()
    out=$(command "\${COMP_WORDS[0]}" __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
    last=\${out##*$'\\n'}
    while IFS= read -r line; do
        [[ $line == :* ]] && continue
        value=\${line%%$'\\t'*}
        printf -v value '%q' "$value"
        COMPREPLY+=("$value")
    done <<< "$out"
    case $last in
        :files) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$cur")) ;;
        :dirs) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -d -- "$cur")) ;;
    esac
    return 0
}
complete -F _appliance_admin ${PROGRAM}
`;

const ZSH = `#compdef ${PROGRAM}
# zsh completion for ${PROGRAM} (made by: ${PROGRAM} completion zsh)
_appliance_admin() {
    local out line last
    local -a lines described
    out=$(command "\${words[1]}" __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("\${(@f)out}")
    last=\${lines[-1]}
    for line in "\${(@)lines[1,-2]}"; do
        if [[ $line == *$'\\t'* ]]; then
            described+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
        else
            described+=("\${line//:/\\\\:}")
        fi
    done
    (( \${#described} )) && _describe -t values ${PROGRAM} described
    case $last in
        :files) _files ;;
        :dirs) _files -/ ;;
    esac
}
if [[ $funcstack[1] == _appliance_admin ]]; then
    _appliance_admin "$@"
else
    compdef _appliance_admin ${PROGRAM}
fi
`;

const FISH = `# fish completion for ${PROGRAM} (made by: ${PROGRAM} completion fish)
function __appliance_admin_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l out (command $words[1] __complete $words[2..-1] $current 2>/dev/null)
    or return
    set -l count (count $out)
    test $count -gt 0; or return
    if test $count -gt 1
        printf '%s\\n' $out[1..-2]
    end
    switch $out[-1]
        case :files
            __fish_complete_path $current
        case :dirs
            __fish_complete_directories $current
    end
end
complete -c ${PROGRAM} -f -a '(__appliance_admin_complete)'
`;

export function completionScript(shell: (typeof SHELLS)[number]): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}
