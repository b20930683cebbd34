// Configure-time probe: does this clang build libFuzzer targets with the
// sanitizers the fuzz tree uses? (tests/fuzz/CMakeLists.txt)
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return data == nullptr && size > 0 ? 1 : 0;
}
