// What nearly every GoogleTest executable here includes, precompiled once
// (fabricpulse_test_pch in tests/CMakeLists.txt) and reused by all of them:
// GoogleTest and gMock, gRPC, Abseil's common headers and the protocol's
// generated messages and stubs. Only headers of libraries and generated
// code: a test's own includes still name everything it uses.
#ifndef FABRICPULSE_TESTS_TEST_PCH_H_
#define FABRICPULSE_TESTS_TEST_PCH_H_

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "fabricpulse/v1/types.pb.h"
#include "fabricpulse/v1/worker.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

#endif  // FABRICPULSE_TESTS_TEST_PCH_H_
