# bash completion for rqlock(1).  The options, lock modes and primitives are
# read from the program itself (`rqlock --help`, `rqlock --list`,
# `rqlock sweep --help`, ...) when first needed, so
# they cannot drift from the binary; job files complete as *.fio.
# Installed as share/bash-completion/completions/rqlock.

_rqlock_opts()
{
	# $1: the rqlock binary, $2: the command (run, devices, sweep, compare, plot, report)
	local key=_rqlock_cache_${2//-/_}
	if [[ -z ${!key-} ]]; then
		local text
		if [[ $2 == run ]]; then
			text=$("$1" --help 2>/dev/null | sed -n '/^Options of run/,/^$/p')
		elif [[ $2 == devices ]]; then
			text="--json --all"
		else
			text=$("$1" "$2" --help 2>/dev/null)
		fi
		printf -v "$key" '%s' "$(grep -oE -- '--[a-z][a-z0-9-]*=?' <<<"$text" | sort -u | tr '\n' ' ')"
	fi
	printf '%s' "${!key}"
}

_rqlock_list()
{
	# $1: the rqlock binary, $2: modes or primitives, from `rqlock --list` (the registries)
	local key=_rqlock_cache_list_$2
	if [[ -z ${!key-} ]]; then
		local text
		if [[ $2 == modes ]]; then
			text=$("$1" --list 2>/dev/null | sed -n '/^Lock modes/,/^$/s/^  \([^ ][^ ]*\) .*/\1/p')
		else
			text=$("$1" --list 2>/dev/null | sed -n 's/^Lock primitives (--lock-type): //p' | tr '|' ' ')
		fi
		printf -v "$key" '%s' "$(tr '\n' ' ' <<<"$text")"
	fi
	printf '%s' "${!key}"
}

_rqlock()
{
	local cur prev words cword
	_init_completion -n = || return
	local bin=${words[0]} cmd="" i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		run | devices | sweep | compare | plot | report) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'run devices sweep compare plot report --help --version' -- "$cur"))
		return
	fi
	case $cur in
	--lock=*) COMPREPLY=($(compgen -W "$(_rqlock_list "$bin" modes)" -- "${cur#*=}")); return ;;
	--lock-type=*) COMPREPLY=($(compgen -W "$(_rqlock_list "$bin" primitives)" -- "${cur#*=}")); return ;;
	--output-format=*) COMPREPLY=($(compgen -W 'normal json json+ terse' -- "${cur#*=}")); return ;;
	--lockstat=*) COMPREPLY=($(compgen -W 'on off' -- "${cur#*=}")); return ;;
	--eta=*) COMPREPLY=($(compgen -W 'auto always never' -- "${cur#*=}")); return ;;
	--write-lock-log=*) COMPREPLY=($(compgen -f -- "${cur#*=}")); return ;;
	--output=*) COMPREPLY=($(compgen -f -- "${cur#*=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "$(_rqlock_opts "$bin" "$cmd")" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace 2>/dev/null
		return ;;
	esac
	case $prev in
	--output | --out | --rqlock) _filedir; return ;;
	--resume | --summarize) _filedir -d; return ;;
	esac
	case $cmd in
	run | sweep) _filedir fio ;;
	compare | plot | report) _filedir -d ;;
	esac
} && complete -F _rqlock rqlock
