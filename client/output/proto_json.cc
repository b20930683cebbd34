#include "client/output/proto_json.h"

#include "google/protobuf/util/json_util.h"

namespace fabricpulse::client {

std::string ProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  // Only fails for messages with unresolvable Any fields; there are none.
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out + "\n";
}

}  // namespace fabricpulse::client
