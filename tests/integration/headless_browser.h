// Headless Chromium for tests of the HTML report: the DOM after loading a
// file, the console messages it logged, and a screenshot. Chromium comes
// from scripts/install-deps.sh --with-test-tools (Debian's `chromium`).
#pragma once

#include <string>
#include <vector>

namespace fabricpulse::testing {

// The chromium binary on PATH (chromium, then chromium-browser); empty when
// there is none.
std::string FindChromium();

struct BrowserPage {
  int exit_code = -1;
  std::string dom;  // --dump-dom: the DOM after load, serialized
  // Every console message (an uncaught exception, console.error, ...) as
  // Chromium logs it on stderr with --enable-logging=stderr --v=0: the
  // lines holding ":CONSOLE".
  std::vector<std::string> console;
  std::string stderr_text;
};

// Loads file://`html_path` in a fresh profile under `profile_dir`, with
// background networking, sync and component updates off. Bounded (60 s).
BrowserPage LoadPage(const std::string& chromium, const std::string& html_path,
                     const std::string& profile_dir);

// Writes a PNG of the page's first `width` x `height` pixels to `png_path`;
// returns chromium's exit code. Bounded (60 s).
int Screenshot(const std::string& chromium, const std::string& html_path,
               const std::string& profile_dir, const std::string& png_path,
               int width, int height);

}  // namespace fabricpulse::testing
