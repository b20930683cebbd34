#include "client/cli/option_choices.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fabricpulse::client {
namespace {

constexpr char kChoices[] = "choices";

// A named validator's description (CLI11 hides it while inactive), or "".
std::string DescriptionOf(CLI::Option& option, const std::string& name) {
  try {
    CLI::Validator copy = *option.get_validator(name);
    copy.active(true);
    return copy.get_description();
  } catch (const CLI::OptionNotFound&) {
    return "";
  }
}

std::vector<std::string> Split(absl::string_view joined) {
  if (joined.empty()) return {};
  return absl::StrSplit(joined, ',');
}

}  // namespace

CLI::Option* WithChoices(CLI::Option* option,
                         const std::vector<std::string>& values) {
  CLI::Validator choices([](std::string&) { return std::string(); },
                         absl::StrJoin(values, ","), kChoices);
  choices.active(false);
  option->check(choices);
  return option;
}

CLI::Option* WithChoices(CLI::Option* option, absl::string_view joined) {
  std::vector<std::string> values;
  for (absl::string_view v : absl::StrSplit(joined, ',', absl::SkipEmpty())) {
    values.emplace_back(absl::StripAsciiWhitespace(v));
  }
  return WithChoices(option, values);
}

std::vector<std::string> ChoicesOf(CLI::Option& option) {
  if (std::string mine = DescriptionOf(option, kChoices); !mine.empty()) {
    return Split(mine);
  }
  // CLI::IsMember describes itself as "{a,b,c}" and has no name.
  const std::string description = DescriptionOf(option, "");
  absl::string_view member = description;
  if (absl::ConsumePrefix(&member, "{") && absl::ConsumeSuffix(&member, "}")) {
    return Split(member);
  }
  return {};
}

}  // namespace fabricpulse::client
