# bash completion for dlconf(8)                              -*- shell-script -*-

_dlconf_units() {
    # Services dld follows when it answers, else the loaded services.
    local units
    units=$(dlconf list --no-legend 2>/dev/null | awk '{print $1}')
    [[ -n $units ]] || units=$(systemctl list-units --type=service --no-legend --plain 2>/dev/null | awk '{print $1}')
    COMPREPLY+=($(compgen -W "$units" -- "$cur"))
}

_dlconf() {
    local cur prev words cword
    _init_completion -s || return

    local verbs="status list show check reload admit release prepare help"
    local global="--help --version --color= --no-legend"
    local verb i
    for ((i = 1; i < cword; i++)); do
        [[ ${words[i]} != -* ]] && { verb=${words[i]}; break; }
    done

    case $prev in
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --json) COMPREPLY=($(compgen -W "short pretty" -- "$cur")); return ;;
        --runtime|--period|--deadline) COMPREPLY=($(compgen -W "500us 1ms 2ms 5ms 10ms 20ms 40ms 100ms" -- "$cur")); return ;;
        --cpus) COMPREPLY=($(compgen -W "$(seq 1 "$(nproc)")" -- "$cur")); return ;;
        --threads) COMPREPLY=($(compgen -W "1 2 3 4 all" -- "$cur")); return ;;
    esac
    [[ $cur == --*=* ]] && return

    if [[ $cur == -* ]]; then
        local opts=$global
        case $verb in
            status|list|show) opts+=" --json=" ;;
            check) opts+=" --json= --cpus=" ;;
            admit) opts+=" --runtime= --period= --deadline= --threads=" ;;
        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi

    case $verb in
        "") COMPREPLY=($(compgen -W "$verbs" -- "$cur")) ;;
        show|admit|release) _dlconf_units ;;
        check) _filedir '@(json|conf|service)' ;;
        help) COMPREPLY=($(compgen -W "$verbs" -- "$cur")) ;;
    esac
} &&
    complete -F _dlconf dlconf
