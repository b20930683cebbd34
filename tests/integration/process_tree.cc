#include "tests/integration/process_tree.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace fabricpulse::testing {
namespace {

// The state letter and parent pid of /proc/PID/stat; false when gone.
bool ReadStat(pid_t pid, char& state, pid_t& parent) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 1));
  return static_cast<bool>(rest >> state >> parent);
}

}  // namespace

std::vector<pid_t> Descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (end == entry->d_name || *end != '\0') continue;
      char state = 0;
      pid_t parent = 0;
      if (ReadStat(static_cast<pid_t>(pid), state, parent) && state != 'Z') {
        children.emplace(parent, static_cast<pid_t>(pid));
      }
    }
    closedir(proc);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> pending = {root};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      found.push_back(it->second);
      pending.push_back(it->second);
    }
  }
  return found;
}

bool ProcessGone(pid_t pid) {
  char state = 0;
  pid_t parent = 0;
  return !ReadStat(pid, state, parent) || state == 'Z';
}

std::vector<std::string> CommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

std::string FlagValue(pid_t pid, const std::string& flag) {
  const std::vector<std::string> argv = CommandLine(pid);
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return "";
}

int64_t ProcStatusNumber(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, field.size() + 1, field + ":") != 0) continue;
    std::istringstream value(line.substr(field.size() + 1));
    int64_t number = -1;
    if (value >> number) return number;
    return -1;
  }
  return -1;
}

}  // namespace fabricpulse::testing
