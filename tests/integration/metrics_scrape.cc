#include "tests/integration/metrics_scrape.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace fabricpulse::testing {

absl::StatusOr<std::string> ScrapeMetrics(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("no port in ", address));
  }
  const std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", address));
  }
  const int fd =
      socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  const bool connected =
      fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", address));
  }
  const std::string request =
      absl::StrCat("GET /metrics HTTP/1.0\r\nHost: ", address,
                   "\r\nConnection: close\r\n\r\n");
  if (write(fd, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return absl::UnavailableError("cannot send the request");
  }
  std::string response;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  char buffer[16384];
  while (absl::Now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    response.append(buffer, n);
  }
  close(fd);
  const size_t body = response.find("\r\n\r\n");
  if (!absl::StartsWith(response, "HTTP/1.") ||
      response.find(" 200 ") == std::string::npos ||
      body == std::string::npos) {
    return absl::UnavailableError(
        absl::StrCat("bad answer from ", address, ": ",
                     response.substr(0, response.find('\n'))));
  }
  return response.substr(body + 4);
}

int CountSeries(const std::string& text, const std::string& prefix) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (absl::StartsWith(line, prefix)) ++n;
  }
  return n;
}

int CountNonZeroSeries(const std::string& text, const std::string& prefix) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#' || !absl::StartsWith(line, prefix)) {
      continue;
    }
    double value = 0;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(space + 1), &value) || value != 0) {
      ++n;
    }
  }
  return n;
}

double SeriesValue(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, series) || !absl::ConsumePrefix(&line, " "))
      continue;
    double value = 0;
    const std::string number(line.substr(0, line.find(' ')));
    if (absl::SimpleAtod(number, &value)) return value;
  }
  return -1;
}

}  // namespace fabricpulse::testing
