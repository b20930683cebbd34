#include <thread>

#include "absl/time/clock.h"
#include "daemon/common/health_endpoint.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

class HealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto health = HealthEndpoint::Start("127.0.0.1:0", {"test.v1.Thing"});
    ASSERT_TRUE(health.ok()) << health.status();
    health_ = *std::move(health);
    ASSERT_FALSE(health_->address().empty());
    stub_ = Health::NewStub(grpc::CreateChannel(
        health_->address(), grpc::InsecureChannelCredentials()));
  }

  grpc::Status Check(const std::string& service, HealthCheckResponse* out) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    HealthCheckRequest request;
    request.set_service(service);
    return stub_->Check(&context, request, out);
  }

  std::unique_ptr<HealthEndpoint> health_;
  std::unique_ptr<Health::Stub> stub_;
};

TEST_F(HealthTest, NotServingUntilStartedThenServing) {
  HealthCheckResponse response;
  ASSERT_TRUE(Check("", &response).ok());
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  health_->SetServing();
  for (const char* service : {"", "test.v1.Thing"}) {
    ASSERT_TRUE(Check(service, &response).ok());
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING) << service;
  }
  EXPECT_EQ(Check("other.Service", &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(HealthTest, WatchFollowsTheStatusAndEndsAtShutdown) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  HealthCheckRequest request;
  auto watch = stub_->Watch(&context, request);
  HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  health_->SetServing();
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVING);
  health_->NotServing();
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(watch->Read(&update));
  EXPECT_TRUE(watch->Finish().ok());
  // For good: a later SetServing changes nothing.
  health_->SetServing();
  HealthCheckResponse response;
  ASSERT_TRUE(Check("", &response).ok());
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
}

TEST_F(HealthTest, WatchOfAnUnknownServiceSaysSo) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  HealthCheckRequest request;
  request.set_service("other.Service");
  auto watch = stub_->Watch(&context, request);
  HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  context.TryCancel();
  EXPECT_FALSE(watch->Read(&update));
}

// A stub on a connection of its own (the server allows 16 streams per
// connection, as many as Watch calls in all).
std::unique_ptr<Health::Stub> OwnConnection(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return Health::NewStub(grpc::CreateCustomChannel(
      address, grpc::InsecureChannelCredentials(), args));
}

TEST_F(HealthTest, WatchCallsAreBounded) {
  health_->SetServing();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<HealthCheckResponse>>> watches;
  HealthCheckRequest request;
  HealthCheckResponse update;
  auto deadline = absl::ToChronoTime(absl::Now() + absl::Seconds(20));
  for (int i = 0; i < HealthService::kMaxWatchers; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(deadline);
    watches.push_back(stub_->Watch(contexts.back().get(), request));
    ASSERT_TRUE(watches.back()->Read(&update)) << i;
  }
  auto other = OwnConnection(health_->address());
  {
    grpc::ClientContext extra;
    extra.set_deadline(deadline);
    auto refused = other->Watch(&extra, request);
    EXPECT_FALSE(refused->Read(&update));
    EXPECT_EQ(refused->Finish().error_code(),
              grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  // Ending one makes room.
  contexts.front()->TryCancel();
  EXPECT_FALSE(watches.front()->Read(&update));
  (void)watches.front()->Finish();
  const absl::Time until = absl::Now() + absl::Seconds(10);
  bool admitted = false;
  while (!admitted && absl::Now() < until) {
    grpc::ClientContext again;
    again.set_deadline(deadline);
    auto watch = other->Watch(&again, request);
    admitted = watch->Read(&update);
    again.TryCancel();
    (void)watch->Finish();
  }
  EXPECT_TRUE(admitted);
  // Stop ends the open calls (NOT_SERVING, then the end of the stream).
  health_->Stop(absl::Seconds(5));
  for (size_t i = 1; i < watches.size(); ++i) {
    ASSERT_TRUE(watches[i]->Read(&update));
    EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
    EXPECT_FALSE(watches[i]->Read(&update));
    EXPECT_TRUE(watches[i]->Finish().ok());
  }
}

TEST(HealthEndpointTest, NoListenerWithoutAnAddressAndBadAddressesRefused) {
  auto none = HealthEndpoint::Start("", {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->address(), "");
  auto bad = HealthEndpoint::Start("nonsense", {});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--health-listen"), std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace fabricpulse::common
