#include "tests/scale/fleet_test_support.h"

#include <stdlib.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::scale {

std::string Bin(const std::string& name) {
  return absl::StrCat(testing::BinDir(), "/", name);
}

int ReadyCount(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "ready=")) return std::atoi(line.c_str() + 6);
  }
  return -1;
}

v1::SweepRequest AllReduceRequest(const std::vector<std::string>& nodes,
                                  uint64_t min_bytes, uint64_t max_bytes) {
  v1::SweepRequest request;
  v1::SweepSpec* spec = request.mutable_spec();
  spec->add_ops("all_reduce");
  spec->set_min_bytes(min_bytes);
  spec->set_max_bytes(max_bytes);
  spec->set_factor(2);
  spec->set_placement("out_of_place");
  spec->set_warmup_iters(1);
  spec->set_iters(1);
  for (const std::string& n : nodes) request.add_nodes(n);
  return request;
}

}  // namespace fabricpulse::scale
