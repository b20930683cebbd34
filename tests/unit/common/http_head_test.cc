// The request head the /metrics endpoint reads and the reply it writes.
#include "daemon/common/http_head.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

TEST(HttpHeadTest, TheHeadEndsAtTheFirstBlankLine) {
  EXPECT_FALSE(HeadEnd("GET /metrics HTTP/1.1\r\nHost: x\r\n").has_value());
  EXPECT_EQ(HeadEnd("GET / HTTP/1.0\r\n\r\nrest"), 18u);
  EXPECT_EQ(HeadEnd("GET / HTTP/1.0\n\n"), 16u);
}

TEST(HttpHeadTest, ParsesTheRequestLineAndTheAuthorization) {
  auto r = ParseHead(
      "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nauthorization:  Basic "
      "YTpi \r\n\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->method, "GET");
  EXPECT_EQ(r->path, "/metrics");
  EXPECT_EQ(r->authorization, "Basic YTpi");
}

TEST(HttpHeadTest, RefusesWhatIsNotAnHttp1RequestLine) {
  for (const char* head :
       {"\r\n\r\n", "GET /metrics\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET /metrics HTTP/2\r\n\r\n", "\x16\x03\x01\x02\r\n\r\n"}) {
    EXPECT_FALSE(ParseHead(head).has_value()) << head;
  }
}

TEST(HttpHeadTest, BasicCredentialsAreDecoded) {
  auto c = ParseBasicCredentials("Basic dXNlcjpwYTpzcw==");  // user:pa:ss
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, "user");
  EXPECT_EQ(c->second, "pa:ss");
  EXPECT_FALSE(ParseBasicCredentials("Bearer abc").has_value());
  EXPECT_FALSE(ParseBasicCredentials("Basic !!!").has_value());
  EXPECT_FALSE(ParseBasicCredentials("Basic dXNlcg==").has_value());  // no :
  EXPECT_FALSE(ParseBasicCredentials("").has_value());
}

TEST(HttpHeadTest, RepliesCloseTheConnectionAndHeadOmitsTheBody) {
  HttpReply reply = PlainReply(404);
  reply.headers.emplace_back("X-A", "b");
  std::string text = SerializeReply(reply);
  EXPECT_TRUE(absl::StartsWith(text, "HTTP/1.1 404 Not Found\r\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "Content-Length: 10\r\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "Connection: close\r\nX-A: b\r\n\r\n"));
  EXPECT_TRUE(absl::EndsWith(text, "Not Found\n"));
  reply.omit_body = true;
  EXPECT_TRUE(absl::EndsWith(SerializeReply(reply), "\r\n\r\n"));
}

}  // namespace
}  // namespace fabricpulse::common
