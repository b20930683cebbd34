// The shared name validator and the quoting of clients' strings in errors:
// each rule fires on a bad value (naming the field, the bound and the
// length, quoting a short prefix) and stays silent on good ones.
#include "daemon/core/name_rules.h"

#include <string>
#include <vector>

#include "daemon/core/limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::Not;

std::string MessageOf(const absl::Status& status) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(EscapeControlTest, KeepsPrintableTextAndEscapesControlCharacters) {
  EXPECT_EQ(EscapeControl("node-a joined"), "node-a joined");
  EXPECT_EQ(EscapeControl("a\nI 00:00 forged"), "a\\nI 00:00 forged");
  EXPECT_EQ(EscapeControl(std::string("x\0y\r\t\x7f\\", 7)),
            "x\\x00y\\r\\t\\x7f\\\\");
  EXPECT_EQ(EscapeControl("µs"), "µs");  // UTF-8 text stays as it is
}

TEST(QuotePrefixTest, ShortValuesWholeLongOnesCutWithTheirLength) {
  EXPECT_EQ(QuotePrefix("all_reduce"), "'all_reduce'");
  const std::string huge(3 << 20, 'x');
  const std::string quoted = QuotePrefix(huge);
  EXPECT_EQ(quoted, "'" + std::string(kQuotedPrefixLength, 'x') +
                        "...' (3145728 bytes)");
  EXPECT_EQ(QuotePrefix("a\nb\xff"), "'a\\nb\\xff'");
}

TEST(NodeNameTest, AcceptsHostnamesAndKubernetesNodeNames) {
  for (const std::string& name : std::vector<std::string>{
           "node-a", "gpu-07.cluster.example.com", "ip-10-0-0-1.ec2.internal",
           "Node_01", "a", "0", std::string(kMaxNodeNameLength, 'n')}) {
    EXPECT_TRUE(ValidateNodeName("node_name", name).ok()) << name;
    EXPECT_TRUE(IsValidNodeName(name)) << name;
  }
}

TEST(NodeNameTest, RefusesControlCharactersAndOtherCharacters) {
  for (const std::string& name : std::vector<std::string>{
           "node\nI 12:00:00 coordinator: forged", "node a", "node/a", "nöde",
           std::string("a\0b", 3), "a\tb", "a;rm"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(IsValidNodeName(name));
    const std::string message = MessageOf(ValidateNodeName("node_name", name));
    EXPECT_THAT(message, HasSubstr("node_name: '"));
    EXPECT_THAT(message, HasSubstr("not allowed at byte"));
    EXPECT_THAT(message, HasSubstr("1 to 253 of A-Z a-z 0-9 . _ -"));
    EXPECT_THAT(message, Not(HasSubstr("\n")));
  }
}

TEST(NodeNameTest, RefusesEmptyTooLongAndBadFirstCharacter) {
  EXPECT_THAT(MessageOf(ValidateNodeName("node_name", "")),
              HasSubstr("must not be empty"));
  const std::string message = MessageOf(
      ValidateNodeName("node_name", std::string(kMaxNodeNameLength + 1, 'a')));
  EXPECT_THAT(message, HasSubstr("is 254 bytes long; allowed: 1 to 253"));
  EXPECT_THAT(MessageOf(ValidateNodeName("node_name", "-rf")),
              HasSubstr("does not start with a letter or digit"));
  EXPECT_THAT(MessageOf(ValidateNodeName("node_name", ".hidden")),
              HasSubstr("does not start with a letter or digit"));
}

TEST(NodeNameTest, AThreeMegabyteNameIsQuotedByItsPrefix) {
  const std::string huge(3 << 20, 'n');
  const std::string message = MessageOf(ValidateNodeName("nodes[0]", huge));
  EXPECT_LT(message.size(), 300u) << message;
  EXPECT_THAT(message, HasSubstr("nodes[0]: 'nnnn"));
  EXPECT_THAT(message, HasSubstr("is 3145728 bytes long"));
}

TEST(IdTest, AcceptsIdsAndRefusesOthers) {
  EXPECT_TRUE(ValidateId("sweep_id", "20261130-021500-ab12", false).ok());
  EXPECT_TRUE(ValidateId("agent_id", "node-a-1-0000beef", false).ok());
  EXPECT_TRUE(ValidateId("boot_id", "", true).ok());
  EXPECT_THAT(MessageOf(ValidateId("agent_id", "", false)),
              HasSubstr("agent_id: must not be empty"));
  EXPECT_THAT(MessageOf(ValidateId("agent_id", "a b", false)),
              HasSubstr("agent_id: 'a b' has a character"));
  EXPECT_THAT(MessageOf(ValidateId("agent_id",
                                   std::string(kMaxIdLength + 1, 'a'), false)),
              HasSubstr("is 129 bytes long; allowed: 1 to 128 bytes"));
}

TEST(AddressTest, AcceptsHostPortFormsAndRefusesOthers) {
  for (const char* address :
       {"127.0.0.1:7071", "[::1]:7071", "[fe80::1%eth0]:7071",
        "node-a.example.com:7071", "fake:node-a"}) {
    EXPECT_TRUE(ValidateAddress("address", address).ok()) << address;
  }
  EXPECT_THAT(MessageOf(ValidateAddress("address", "a:1\nforged")),
              HasSubstr("address: 'a:1\\nforged' has a character"));
  EXPECT_THAT(MessageOf(ValidateAddress("address", "")),
              HasSubstr("must not be empty"));
}

TEST(TextTest, PrintableOnlyAndBounded) {
  EXPECT_TRUE(ValidateText("backend_version", "nccl 2.28.9", 128).ok());
  EXPECT_TRUE(ValidateText("backend_version", "", 128).ok());
  EXPECT_THAT(MessageOf(ValidateText("backend_version", "gloo\n0.5", 128)),
              HasSubstr("backend_version: 'gloo\\n0.5' has a character"));
  EXPECT_THAT(
      MessageOf(ValidateText("backend_version", std::string(129, 'v'), 128)),
      HasSubstr("is 129 bytes long; allowed: 0 to 128 bytes"));
}

TEST(CheckLengthTest, BoundAndEmpty) {
  EXPECT_TRUE(CheckLength("ops", "all_reduce", 32).ok());
  EXPECT_TRUE(CheckLength("x", "", 4, /*allow_empty=*/true).ok());
  EXPECT_THAT(MessageOf(CheckLength("ops", std::string(33, 'o'), 32)),
              HasSubstr("ops: 'oooo"));
  EXPECT_THAT(MessageOf(CheckLength("ops", std::string(33, 'o'), 32)),
              HasSubstr("...' is 33 bytes long; allowed: 1 to 32 bytes"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
