// A response as JSON: protobuf's JSON mapping, the one JSON writer of the
// listing commands (agents, plans, schedules).
#pragma once

#include <string>

#include "google/protobuf/message.h"

namespace fabricpulse::client {

// `message` in protobuf's JSON mapping on one line, then a newline: field
// names as in the .proto (snake_case), default values printed (64-bit
// integers are strings, as that mapping has them).
std::string ProtoJson(const google::protobuf::Message& message);

}  // namespace fabricpulse::client
