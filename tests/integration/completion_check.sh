#!/usr/bin/env bash
# Shell completion and the man page, as a user gets them from the real
# binary: `fabricpulse completion bash` is loaded by bash and driven through
# COMP_WORDS/COMP_CWORD as bash's completion would; `fabricpulse completion
# zsh` is loaded by zsh (skipped without zsh); `fabricpulse man` renders
# with groff and man without a warning; and every command that --help lists
# (at the top and under `local` and `config`) is in both, so a command added
# to the CLI but missing from them fails here.
#
#   tests/integration/completion_check.sh BIN_DIR [MAN_FILE]
#
# Exits 77 (skipped) without groff or man. MAN_FILE: the page the build wrote (build/share/man/man1/fabricpulse.1),
# which must be what `fabricpulse man` prints.
set -uo pipefail
bin="${1:?usage: completion_check.sh BIN_DIR [MAN_FILE]}"
man_file="${2:-}"
fp="$bin/fabricpulse"
for tool in groff man; do
  if ! command -v "$tool" >/dev/null; then
    echo "completion_check: needs $tool (scripts/install-deps.sh --with-test-tools); skipped"
    exit 77
  fi
done
failures=0
fail() { echo "completion_check: FAIL: $*"; failures=$((failures + 1)); }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$fp" completion bash > "$tmp/fabricpulse.bash" || fail "completion bash exited $?"
"$fp" completion zsh > "$tmp/_fabricpulse" || fail "completion zsh exited $?"
"$fp" man > "$tmp/fabricpulse.1" || fail "man exited $?"

# What bash completes for the words given (the last one being completed).
complete_words() {
  bash --norc --noprofile -c '
    source "$1" || exit 1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _fabricpulse
    printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/fabricpulse.bash" "$@"
}
expect_words() {  # expect_words "WANT (sorted, space-separated)" WORD...
  local want="$1" got
  shift
  got="$(complete_words "$@" | sort | tr '\n' ' ' | sed 's/ $//')"
  [ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}

# Loaded by real bash, registered for fabricpulse.
registered="$(bash --norc --noprofile -c \
  'source <("$1" completion bash) && complete -p fabricpulse' _ "$fp" 2>&1)"
case "$registered" in
  *"-F _fabricpulse"*"fabricpulse") ;;
  *) fail "complete -p fabricpulse: '$registered'" ;;
esac

expect_words "sweep" fabricpulse sw
expect_words "schedules sweep" fabricpulse s
expect_words "check" fabricpulse config ch
ops="$("$fp" sweep --help | sed -n 's/^ *Ops, comma-separated; allowed: \(.*\)$/\1/p')"
[ -n "$ops" ] || fail "sweep --help lists no ops"
want_a="$(echo "$ops" | tr -d ' ' | tr ',' '\n' | grep '^a' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_words "$want_a" fabricpulse sweep --ops a
expect_words "$want_a" fabricpulse --coordinator h:1 sweep --ops a
want_list="$(echo "$want_a" | tr ' ' '\n' | grep '^al' | sed 's/^/all_reduce,/' | tr '\n' ' ' | sed 's/ $//')"
expect_words "$want_list" fabricpulse sweep --ops all_reduce,al
expect_words "csv json table" fabricpulse plans --output ""
expect_words "csv json table" fabricpulse schedules --output ""
expect_words "csv json table" fabricpulse diagnose --output ""
expect_words "csv json table" fabricpulse --output ""
expect_words "always auto never" fabricpulse local sweep --progress ""
expect_words "GBps Gbps" fabricpulse results --bw-unit ""
expect_words "auto gloo nccl" fabricpulse local --backend ""
expect_words "bash zsh" fabricpulse completion ""
dtypes="$(complete_words fabricpulse sweep --dtype "")"
grep -qx float <<<"$dtypes" || fail "--dtype completes no float: $dtypes"
redops="$(complete_words fabricpulse sweep --redop "")"
grep -qx sum <<<"$redops" || fail "--redop completes no sum: $redops"
# A global flag after the command, and the command's own flags.
flags="$(complete_words fabricpulse sweep --)"
for flag in --ops --dtype --wait --coordinator --tls-cert --help; do
  grep -qx -- "$flag" <<<"$flags" || fail "sweep -- lacks $flag"
done

# Every command --help lists, in the completion and the man page.
commands_of() {  # the names under "Subcommands:" of `fabricpulse $* --help`
  "$fp" "$@" --help | awk '/^Subcommands:/ {on = 1; next}
    on && /^  [a-z]/ {print $1; next} on && !/^  / {on = 0}'
}
check_commands() {  # check_commands PATH...
  local listed completed name
  listed="$(commands_of "$@")"
  [ -n "$listed" ] || fail "'fabricpulse $* --help' lists no commands"
  completed="$(complete_words fabricpulse "$@" "")"
  for name in $listed; do
    grep -qx "$name" <<<"$completed" ||
      fail "completion of 'fabricpulse $* ' lacks $name"
    # roff escapes a '-' in the heading (node\-check).
    grep -q "^\.SS \"$(echo "$* $name" | sed 's/^ //; s/-/\\\\-/g')\"" \
      "$tmp/fabricpulse.1" || fail "man page lacks 'fabricpulse $* $name'"
  done
}
check_commands
check_commands local
check_commands config
for name in plans schedules completion man sweep local; do
  grep -qx "$name" <<<"$(commands_of)" || fail "--help lists no $name"
done

# The man page renders without a warning, with its sections.
warnings="$(groff -man -Tutf8 -ww -z "$tmp/fabricpulse.1" 2>&1)"
[ -z "$warnings" ] || fail "groff warns: $warnings"
rendered="$(MANWIDTH=100 man -l "$tmp/fabricpulse.1" 2>"$tmp/man.err")"
[ -s "$tmp/man.err" ] && fail "man -l warns: $(cat "$tmp/man.err")"
# Here-strings, not `echo | grep -q`: the page (~33 KB) can be larger than
# a pipe's buffer (one 4 KiB page once the user's pipes pass
# fs.pipe-user-pages-soft), so grep -q's early exit could kill echo with
# SIGPIPE and, under pipefail, fail a check whose line was found.
for section in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS "EXIT STATUS" \
  EXAMPLES ENVIRONMENT; do
  grep -q "^$section" <<<"$rendered" || fail "man page lacks $section"
done
for code in 0 1 2 3 4 5; do
  grep -q "^       $code\b" <<<"$rendered" || fail "EXIT STATUS lacks $code"
done
grep -q "Allowed: table, json, csv" <<<"$rendered" ||
  fail "man page lists no allowed --output values"
if [ -n "$man_file" ]; then
  cmp -s "$man_file" "$tmp/fabricpulse.1" ||
    fail "$man_file is not what 'fabricpulse man' prints"
fi

# zsh: the script parses, loads under compinit and registers itself; its
# tables answer as bash's do.
if command -v zsh >/dev/null; then
  zsh -n "$tmp/_fabricpulse" || fail "zsh -n: the script does not parse"
  got="$(zsh -f -c '
    autoload -U compinit && compinit -u -D
    source "$1" || exit 1
    print -r -- "registered=${_comps[fabricpulse]}"
    _fabricpulse_commands ""; print -r -- "commands=${(j: :)${(@)reply%%:*}}"
    _fabricpulse_choices sweep --ops; print -r -- "ops=${(j: :)reply}"
    _fabricpulse_values sweep; print -r -- "values=${(j: :)reply}"' \
    _ "$tmp/_fabricpulse" 2>&1)"
  grep -qx "registered=_fabricpulse" <<<"$got" ||
    fail "zsh: not registered: $got"
  grep -q "^commands=.*\bsweep\b" <<<"$got" || fail "zsh: no sweep: $got"
  grep -q "^ops=all_reduce " <<<"$got" || fail "zsh: no ops: $got"
  grep -q "^values=.*--ops\b" <<<"$got" || fail "zsh: --ops takes no value: $got"
  # _fabricpulse itself, with zsh's completion builtins stood in for by
  # functions that print what they were given (they only run inside a
  # completion widget otherwise): what it offers for the words typed.
  zsh_offers() {
    zsh -f -c '
      compdef() { :; }
      compadd() { [[ "$1" == -- ]] && shift; print -r -- "values $*"; }
      _describe() { print -r -- "$2 ${(j: :)${(@)${(P)4}%%:*}}"; }
      _files() { print -r -- "files"; }
      compset() { :; }
      source "$1" || exit 1
      shift
      words=("$@")
      CURRENT=${#words}
      _fabricpulse' _ "$tmp/_fabricpulse" "$@" 2>&1
  }
  expect_zsh() {  # expect_zsh PATTERN WORD...
    local pattern="$1" got
    shift
    got="$(zsh_offers "$@")"
    [[ "$got" == $pattern ]] || fail "zsh, completing '$*': got '$got'"
  }
  expect_zsh "commands *sweep*" fabricpulse sw
  expect_zsh "commands check" fabricpulse config ch
  expect_zsh "values all_reduce all_gather *" fabricpulse sweep --ops a
  expect_zsh "values all_reduce all_gather *" fabricpulse sweep --ops=a
  expect_zsh "values table json csv" fabricpulse plans --output ""
  expect_zsh "values table json csv" fabricpulse diagnose --output ""
  expect_zsh "options *--ops*--wait*" fabricpulse sweep --
  expect_zsh "files" fabricpulse config check ""
  expect_zsh "commands bash zsh" fabricpulse completion ""
else
  echo "completion_check: zsh not installed; its checks skipped"
fi

if [ "$failures" -gt 0 ]; then
  echo "completion_check: $failures failure(s)"
  exit 1
fi
echo "completion_check: passed"
