#include "tests/integration/headless_browser.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// /work/shared/tooling.md's flags: no sandbox (root in a container), no
// GPU, nothing that reaches out on its own.
std::vector<std::string> BaseFlags(const std::string& profile_dir) {
  return {"--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--user-data-dir=" + profile_dir};
}

}  // namespace

std::string FindChromium() {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path ? path : "", ':', absl::SkipEmpty())) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::string candidate = absl::StrCat(dir, "/", name);
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

BrowserPage LoadPage(const std::string& chromium, const std::string& html_path,
                     const std::string& profile_dir) {
  std::vector<std::string> args = BaseFlags(profile_dir);
  args.insert(args.end(), {"--enable-logging=stderr", "--v=0", "--dump-dom",
                           "file://" + html_path});
  CliResult run = RunProgram(chromium, args, 60);
  BrowserPage page;
  page.exit_code = run.exit_code;
  page.dom = std::move(run.out);
  page.stderr_text = run.err;
  for (absl::string_view line : absl::StrSplit(run.err, '\n')) {
    if (absl::StrContains(line, ":CONSOLE")) page.console.emplace_back(line);
  }
  return page;
}

int Screenshot(const std::string& chromium, const std::string& html_path,
               const std::string& profile_dir, const std::string& png_path,
               int width, int height) {
  std::vector<std::string> args = BaseFlags(profile_dir);
  args.insert(args.end(), {"--hide-scrollbars",
                           absl::StrCat("--window-size=", width, ",", height),
                           "--screenshot=" + png_path, "file://" + html_path});
  return RunProgram(chromium, args, 60).exit_code;
}

}  // namespace fabricpulse::testing
