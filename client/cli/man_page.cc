#include "client/cli/man_page.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/cli/help_text.h"
#include "client/commands/exit_codes.h"

namespace fabricpulse::client {
namespace {

std::string OptionItem(const OptionModel& o) {
  std::vector<std::string> names;
  for (const std::string& n : o.names) {
    names.push_back(absl::StrCat("\\fB", RoffEscape(n), "\\fR"));
  }
  std::string head =
      o.positional.empty()
          ? absl::StrJoin(names, ", ")
          : absl::StrCat("\\fI", RoffEscape(o.positional), "\\fR");
  if (o.takes_value && o.positional.empty()) {
    absl::StrAppend(&head, " \\fI",
                    RoffEscape(o.type_name.empty() ? "VALUE" : o.type_name),
                    "\\fR");
  }
  std::string body = RoffEscape(o.description);
  if (!o.choices.empty()) {
    absl::StrAppend(&body, "\n.br\nAllowed: ",
                    RoffEscape(absl::StrJoin(o.choices, ", ")), ".");
  }
  if (!o.default_value.empty()) {
    absl::StrAppend(&body, "\n.br\nDefault: ", RoffEscape(o.default_value),
                    ".");
  }
  if (o.required) absl::StrAppend(&body, "\n.br\nRequired.");
  return absl::StrCat(".TP\n", head, "\n", body, "\n");
}

std::string Usage(const CommandModel& c) {
  std::string usage = absl::StrCat(".B fabricpulse ", RoffEscape(c.path));
  if (!c.options.empty()) absl::StrAppend(&usage, "\n[\\fIOPTIONS\\fR]");
  for (const OptionModel& p : c.positionals) {
    absl::StrAppend(&usage, "\n\\fI", RoffEscape(p.positional), "\\fR");
  }
  if (!c.subcommands.empty()) absl::StrAppend(&usage, "\n\\fICOMMAND\\fR");
  return usage + "\n";
}

std::string Command(const CommandModel& c) {
  std::string out = absl::StrCat(".SS \"", RoffEscape(c.path), "\"\n", Usage(c),
                                 ".PP\n", RoffEscape(c.description), "\n");
  if (!c.subcommands.empty()) {
    std::vector<std::string> names;
    for (const CommandModel& s : c.subcommands) names.push_back(s.name);
    absl::StrAppend(&out,
                    ".PP\nCommands: ", RoffEscape(absl::StrJoin(names, ", ")),
                    " (each below).\n");
  }
  for (const OptionModel& p : c.positionals)
    absl::StrAppend(&out, OptionItem(p));
  for (const OptionModel& o : c.options) absl::StrAppend(&out, OptionItem(o));
  return out;
}

// The lines of help_text's examples ("  COMMAND   what it does").
std::string Examples() {
  std::string out = ".nf\n";
  std::vector<std::string> lines = absl::StrSplit(ExamplesFooter(), '\n');
  for (size_t i = 1; i < lines.size(); ++i) {  // [0] is "Examples:"
    absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    if (!line.empty()) absl::StrAppend(&out, RoffEscape(line), "\n");
  }
  return out + ".fi\n";
}

}  // namespace

std::string RoffEscape(absl::string_view text) {
  std::string out =
      absl::StrReplaceAll(text, {{"\\", "\\e"}, {"-", "\\-"}, {"\n", " "}});
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    out.insert(0, "\\&");
  }
  return out;
}

std::string ManPage(const CommandModel& app, absl::string_view version) {
  // "fabricpulse: what it does" in --help; NAME names the program itself.
  absl::string_view summary = app.description;
  absl::ConsumePrefix(&summary, "fabricpulse: ");
  std::vector<std::string> names;
  for (const CommandModel& c : app.subcommands) names.push_back(c.name);
  std::string out = absl::StrCat(
      ".\\\" Written by `fabricpulse man` from the CLI's own definitions.\n",
      ".TH FABRICPULSE 1 \"\" \"", RoffEscape(version),
      "\" \"User Commands\"\n", ".SH NAME\nfabricpulse \\- ",
      RoffEscape(summary), "\n", ".SH SYNOPSIS\n.B fabricpulse\n",
      "[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n",
      ".SH DESCRIPTION\n",
      "\\fBfabricpulse\\fR is the command\\-line client "
      "of FabricPulse: it runs collective\\-communication sweeps through a "
      "coordinator (or a whole system on this machine with \\fBlocal\\fR), "
      "shows their history, and reads the coordinator's agents, plans and "
      "schedules.\n.PP\nCommands: ",
      RoffEscape(absl::StrJoin(names, ", ")),
      ".\nGlobal options go before or after the command.\n",
      ".SH OPTIONS\nGlobal options:\n");
  for (const OptionModel& o : app.options) absl::StrAppend(&out, OptionItem(o));
  absl::StrAppend(&out, ".SH COMMANDS\n");
  for (const CommandModel* c : AllCommands(app)) {
    absl::StrAppend(&out, Command(*c));
  }
  absl::StrAppend(&out, ".SH EXIT STATUS\n");
  for (const ExitCodeMeaning& m : kExitCodeMeanings) {
    absl::StrAppend(&out, ".TP\n.B ", m.code, "\n", RoffEscape(m.meaning),
                    "\n");
  }
  absl::StrAppend(&out, ".SH EXAMPLES\n", Examples(), ".SH ENVIRONMENT\n");
  for (const OptionModel& o : app.options) {
    if (o.envname.empty() || o.names.empty()) continue;
    absl::StrAppend(&out, ".TP\n.B ", RoffEscape(o.envname),
                    "\nStands in for \\fB", RoffEscape(o.names.back()),
                    "\\fR.\n");
  }
  absl::StrAppend(&out,
                  ".SH SEE ALSO\n\\fBfabricpulse\\-coordinator\\fR, "
                  "\\fBfabricpulse\\-agent\\fR; the README of FabricPulse.\n");
  return out;
}

}  // namespace fabricpulse::client
