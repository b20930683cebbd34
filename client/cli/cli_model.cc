#include "client/cli/cli_model.h"

#include "absl/strings/str_cat.h"
#include "client/cli/option_choices.h"

namespace fabricpulse::client {
namespace {

OptionModel DescribeOption(CLI::Option& option) {
  OptionModel m;
  for (const std::string& s : option.get_snames()) m.names.push_back("-" + s);
  for (const std::string& l : option.get_lnames()) m.names.push_back("--" + l);
  if (option.get_positional()) m.positional = option.get_name(true, false);
  m.description = option.get_description();
  m.takes_value = option.get_items_expected_max() > 0;  // flags expect 0
  if (m.takes_value) m.type_name = option.get_type_name();
  m.default_value = option.get_default_str();
  m.required = option.get_required();
  m.envname = option.get_envname();
  m.choices = ChoicesOf(option);
  return m;
}

CommandModel DescribeCommand(CLI::App& app, const std::string& path) {
  CommandModel m;
  m.name = app.get_name();
  m.path = path;
  m.description = app.get_description();
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    OptionModel o = DescribeOption(*option);
    if (!o.positional.empty() && o.names.empty()) {
      m.positionals.push_back(std::move(o));
    } else {
      m.options.push_back(std::move(o));
    }
  }
  for (CLI::App* sub : app.get_subcommands(
           [](CLI::App* sub) { return !sub->get_group().empty(); })) {
    m.subcommands.push_back(DescribeCommand(
        *sub, path.empty() ? sub->get_name()
                           : absl::StrCat(path, " ", sub->get_name())));
  }
  return m;
}

void Collect(const CommandModel& command,
             std::vector<const CommandModel*>& out) {
  for (const CommandModel& sub : command.subcommands) {
    out.push_back(&sub);
    Collect(sub, out);
  }
}

}  // namespace

CommandModel DescribeApp(CLI::App& app) { return DescribeCommand(app, ""); }

std::vector<const CommandModel*> AllCommands(const CommandModel& root) {
  std::vector<const CommandModel*> out;
  Collect(root, out);
  return out;
}

}  // namespace fabricpulse::client
