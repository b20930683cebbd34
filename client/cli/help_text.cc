#include "client/cli/help_text.h"

#include "absl/strings/str_cat.h"
#include "client/commands/exit_codes.h"

namespace fabricpulse::client {

std::string ExamplesFooter() {
  return "Examples:\n"
         "  fabricpulse local sweep                  a whole system on this "
         "machine: all_reduce 8 B..32 MiB\n"
         "  fabricpulse local --agents 2 --ranks 4 sweep --ops "
         "all_reduce,alltoall --max-bytes 1M\n"
         "  fabricpulse --coordinator HOST:PORT agents\n"
         "  fabricpulse sweep --coordinator HOST:PORT --ops all_gather "
         "--max-bytes 1G --output json\n"
         "  fabricpulse sweep -b 8 -e 1G -n 20 -o json nccl-tests' letters, "
         "kubectl's -o\n"
         "  fabricpulse sweep --plan nightly-full    a plan of the "
         "coordinator's config\n"
         "  fabricpulse results --last 5             the sweep history\n"
         "  fabricpulse report --last 3 -o fp.html   charts in one HTML "
         "file\n"
         "  fabricpulse diagnose                     who a stalled or "
         "failed sweep waits on\n"
         "  fabricpulse COMMAND --help               the flags of one "
         "command\n"
         "  (FABRICPULSE_COORDINATOR=HOST:PORT stands in for "
         "--coordinator)\n";
}

std::string ExitCodesFooter() {
  std::string text = "Exit codes:\n";
  for (const ExitCodeMeaning& m : kExitCodeMeanings) {
    absl::StrAppend(&text, "  ", m.code, "  ", m.meaning, "\n");
  }
  return text;
}

std::string RootHelpFooter() {
  return absl::StrCat(
      "\nGlobal flags (--coordinator, --tls-*, --insecure, --trust-domain, "
      "--tls-refresh, --output) go before or after the command.\n\n",
      ExamplesFooter(), "\n", ExitCodesFooter());
}

std::string WithAllowed(absl::string_view help, absl::string_view allowed) {
  return absl::StrCat(help, "; allowed: ", allowed);
}

}  // namespace fabricpulse::client
