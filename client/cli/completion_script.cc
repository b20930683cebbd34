#include "client/cli/completion_script.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace fabricpulse::client {
namespace {

// One command as completion sees it: its subcommands, and its options with
// its parents' (CLI11's fallthrough takes a parent's flag after the
// command), a command's own definition winning over a parent's of the same
// name.
struct Scope {
  std::string path;
  const CommandModel* command = nullptr;
  std::map<std::string, const OptionModel*> options;  // by name
};

void CollectScopes(const CommandModel& command,
                   const std::map<std::string, const OptionModel*>& inherited,
                   std::vector<Scope>& out) {
  Scope scope;
  scope.path = command.path;
  scope.command = &command;
  scope.options = inherited;
  for (const OptionModel& o : command.options) {
    for (const std::string& name : o.names) scope.options[name] = &o;
  }
  out.push_back(scope);
  for (const CommandModel& sub : command.subcommands) {
    CollectScopes(sub, scope.options, out);
  }
}

std::vector<Scope> Scopes(const CommandModel& app) {
  std::vector<Scope> scopes;
  CollectScopes(app, {}, scopes);
  return scopes;
}

// 'text' for the shell, quotes inside escaped.
std::string Quote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

// One line of help: the first sentence's worth is plenty in a menu.
std::string Summary(absl::string_view description) {
  std::string line = absl::StrReplaceAll(description, {{"\n", " "}});
  if (line.size() > 80) line = absl::StrCat(line.substr(0, 77), "...");
  return line;
}

// A shell function `name` that runs `reset`, then, for its arguments joined
// by '|', the matching body: `cases` maps keys to bodies.
std::string CaseFunction(
    absl::string_view name, absl::string_view key,
    const std::vector<std::pair<std::string, std::string>>& cases,
    absl::string_view reset) {
  std::string out =
      absl::StrCat(name, "() {\n", reset, "  case \"", key, "\" in\n");
  for (const auto& [pattern, body] : cases) {
    absl::StrAppend(&out, "    ", Quote(pattern), ") ", body, " ;;\n");
  }
  absl::StrAppend(&out, "  esac\n}\n");
  return out;
}

struct Tables {
  std::vector<std::pair<std::string, std::string>> commands, options, values,
      choices;
};

// `words(list)` turns a list into the shell's body for one case.
template <typename Words>
Tables MakeTables(const CommandModel& app, Words words, bool described) {
  Tables t;
  for (const Scope& s : Scopes(app)) {
    std::vector<std::string> subs, opts, values;
    for (const CommandModel& sub : s.command->subcommands) {
      subs.push_back(described
                         ? absl::StrCat(sub.name, ":", Summary(sub.description))
                         : sub.name);
    }
    for (const auto& [name, option] : s.options) {
      opts.push_back(
          described ? absl::StrCat(absl::StrReplaceAll(name, {{":", "\\:"}}),
                                   ":", Summary(option->description))
                    : name);
      if (!option->takes_value) continue;
      values.push_back(name);
      if (!option->choices.empty()) {
        t.choices.push_back(
            {absl::StrCat(s.path, "|", name), words(option->choices)});
      }
    }
    // A command's fixed first argument (`completion bash|zsh`) completes
    // where a subcommand would.
    if (subs.empty() && !s.command->positionals.empty()) {
      const OptionModel& first = s.command->positionals.front();
      for (const std::string& choice : first.choices) {
        subs.push_back(
            described ? absl::StrCat(choice, ":", Summary(first.description))
                      : choice);
      }
    }
    if (!subs.empty()) t.commands.push_back({s.path, words(subs)});
    t.options.push_back({s.path, words(opts)});
    t.values.push_back({s.path, words(values)});
  }
  return t;
}

// The four table functions: commands and options from `shown` (with
// descriptions, for zsh), values and choices from `names`; each starts with
// `reset` (zsh's: empty `reply`, which must not keep the last call's answer
// when no case matches).
std::string TableFunctions(const Tables& shown, const Tables& names,
                           absl::string_view reset) {
  return absl::StrCat(
      CaseFunction("_fabricpulse_commands", "$1", shown.commands, reset),
      CaseFunction("_fabricpulse_options", "$1", shown.options, reset),
      CaseFunction("_fabricpulse_values", "$1", names.values, reset),
      CaseFunction("_fabricpulse_choices", "$1|$2", names.choices, reset));
}

constexpr char kBashMain[] = R"bash(
_fabricpulse() {
  local cur="${COMP_WORDS[COMP_CWORD]}" path="" word opt i
  COMPREPLY=()
  # The command typed so far: the words that name subcommands, skipping
  # options and the values of those that take one (also as --opt=value,
  # which bash splits at '=').
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${COMP_WORDS[i]}"
    if [[ "$word" == -* ]]; then
      if [[ " $(_fabricpulse_values "$path") " == *" $word "* ]]; then
        ((i++))
        [[ "${COMP_WORDS[i]}" == "=" ]] && ((i++))
      fi
    elif [[ " $(_fabricpulse_commands "$path") " == *" $word "* ]]; then
      path="${path:+$path }$word"
    fi
  done
  opt="${COMP_WORDS[COMP_CWORD-1]}"
  [[ "$opt" == "=" ]] && opt="${COMP_WORDS[COMP_CWORD-2]}"
  if [[ "$opt" == -* && " $(_fabricpulse_values "$path") " == *" $opt "* ]]; then
    local choices prefix=""
    choices="$(_fabricpulse_choices "$path" "$opt")"
    # No fixed set: nothing here, and `complete -o default` offers files.
    [[ -z "$choices" ]] && return 0
    [[ "$cur" == *,* ]] && prefix="${cur%,*},"
    COMPREPLY=($(compgen -P "$prefix" -W "$choices" -- "${cur##*,}"))
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_fabricpulse_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_fabricpulse_commands "$path")" -- "$cur"))
  fi
  return 0
}
complete -o default -F _fabricpulse fabricpulse
)bash";

constexpr char kZshMain[] = R"zsh(
_fabricpulse() {
  local path_="" word opt cur="${words[CURRENT]}" i
  local -a reply
  # The command typed so far, as in the bash script.
  for ((i = 2; i < CURRENT; i++)); do
    word="${words[i]}"
    if [[ "$word" == -* ]]; then
      _fabricpulse_values "$path_"
      if [[ "$word" != *=* ]] && (( ${reply[(Ie)$word]} )); then
        ((i++))
      fi
    else
      _fabricpulse_commands "$path_"
      if (( ${reply[(I)${word}:*]} )); then
        path_="${path_:+$path_ }$word"
      fi
    fi
  done
  opt="${words[CURRENT-1]}"
  if [[ "$cur" == --*=* ]]; then
    opt="${cur%%=*}"
    compset -P '*='
  fi
  _fabricpulse_values "$path_"
  if [[ "$opt" == -* ]] && (( ${reply[(Ie)$opt]} )); then
    _fabricpulse_choices "$path_" "$opt"
    if (( ${#reply} )); then
      compset -P '*,'
      compadd -- "${reply[@]}"
    else
      _files
    fi
    return
  fi
  if [[ "$cur" == -* ]]; then
    _fabricpulse_options "$path_"
    _describe -t options 'option' reply
  else
    _fabricpulse_commands "$path_"
    if (( ${#reply} )); then
      _describe -t commands 'command' reply
    else
      _files
    fi
  fi
}
if [[ "${funcstack[1]}" == "_fabricpulse" ]]; then
  _fabricpulse "$@"
else
  compdef _fabricpulse fabricpulse
fi
)zsh";

}  // namespace

std::string BashCompletion(const CommandModel& app) {
  const Tables t = MakeTables(
      app,
      [](const std::vector<std::string>& list) {
        return absl::StrCat("echo ", Quote(absl::StrJoin(list, " ")));
      },
      /*described=*/false);
  return absl::StrCat(
      "# bash completion for fabricpulse, written by `fabricpulse completion "
      "bash`\n# from the CLI's own definitions. Install:\n#   fabricpulse "
      "completion bash > /etc/bash_completion.d/fabricpulse\n",
      "# (or ~/.local/share/bash-completion/completions/fabricpulse), or "
      "for this shell:\n#   source <(fabricpulse completion bash)\n\n",
      "# Subcommands, options, options taking a value, and fixed values, per\n"
      "# command path (\"\" is the program, \"local sweep\" a subcommand).\n",
      TableFunctions(t, t, ""), kBashMain);
}

std::string ZshCompletion(const CommandModel& app) {
  const auto reply = [](const std::vector<std::string>& list) {
    std::vector<std::string> quoted;
    for (const std::string& item : list) quoted.push_back(Quote(item));
    return absl::StrCat("reply=(", absl::StrJoin(quoted, " "), ")");
  };
  const Tables t = MakeTables(app, reply, /*described=*/true);
  // Names alone for the value check and the fixed values.
  const Tables names = MakeTables(app, reply, /*described=*/false);
  return absl::StrCat(
      "#compdef fabricpulse\n# zsh completion for fabricpulse, written by "
      "`fabricpulse completion zsh`\n# from the CLI's own definitions. "
      "Install as _fabricpulse in a folder of $fpath:\n#   fabricpulse "
      "completion zsh > \"${fpath[1]}/_fabricpulse\"\n# or, after compinit, "
      "for this shell: source <(fabricpulse completion zsh)\n\n",
      TableFunctions(t, names, "  reply=()\n"), kZshMain);
}

}  // namespace fabricpulse::client
