// Publishes this node's verdict on the node (issue 30): what the
// coordinator hands with each heartbeat (v1::NodeVerdictNotice, the worst of
// its campaign plans' verdicts for this node), kept in
//  - a node-feature-discovery feature file, `<--nfd-features-dir>/fabricpulse`
//    (core/nfd_feature_file.h), whose expiry is the verdict's own (last
//    tested + the plan's validity): a verdict that is not renewed vanishes
//    by itself, also when the coordinator or this agent is gone;
//  - the file `fabricpulse node-check` reads for node-problem-detector,
//    --verdict-file (v1::LocalVerdictFile as JSON), rewritten when it
//    changes and at least every kVerdictFileRefresh, so a stale file says
//    the agent is gone; removed when the agent stops.
// Only answers of the coordinator this agent registered with (mutual TLS,
// its identity pinned) reach it: the registration thread calls Observe.
//
// The feature file:
//  - written (temp + rename) when its text changes, removed when the
//    coordinator says no campaign plan covers this node, or when its expiry
//    passes (checked at each exchange, answered or not);
//  - untested has no measurement to expire: it is written with an expiry
//    of kUntestedLease from the last answer saying so, renewed when half of
//    it is left, so it too vanishes when the coordinator is gone;
//  - a file left by an earlier agent process stays until this one hears
//    the coordinator, or until the expiry written in it passes.
//
// Thread-safety: thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

inline constexpr absl::Duration kUntestedLease = absl::Minutes(10);
inline constexpr absl::Duration kVerdictFileRefresh = absl::Minutes(1);

struct VerdictPublisherOptions {
  std::string node;
  std::string nfd_features_dir;  // "": no feature file
  std::string verdict_file;      // "": no verdict file
};

class VerdictPublisher {
 public:
  // Errors: INVALID_ARGUMENT naming --nfd-features-dir when it is not a
  // writable folder, or --verdict-file when its folder is not.
  static absl::StatusOr<std::unique_ptr<VerdictPublisher>> Create(
      VerdictPublisherOptions options,
      core::Clock* clock = core::RealClock::Get());

  // After each exchange with the coordinator: `answer` is the heartbeat's
  // answer, nullptr when none came (unreachable, not registered yet).
  void Observe(const v1::HeartbeatResponse* answer);

  // The agent stops: the verdict file goes (node-check then answers
  // unknown at once, rather than after its --max-age); the feature file
  // stays, true until its own expiry. Observe writes nothing after it.
  void Stop();

 private:
  VerdictPublisher(VerdictPublisherOptions options, core::Clock* clock)
      : options_(std::move(options)), clock_(clock) {}
  void PublishFeatureFile(absl::Time now, bool answered)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PublishVerdictFile(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Logs `error` unless it is the one logged last (no log per heartbeat).
  void Report(const absl::Status& error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const VerdictPublisherOptions options_;
  core::Clock* const clock_;
  absl::Mutex mu_;
  bool heard_ ABSL_GUARDED_BY(mu_) = false;  // an answer since start
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<v1::NodeVerdictNotice> verdict_ ABSL_GUARDED_BY(mu_);
  absl::Time answered_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time untested_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // The feature file on disk: its text and expiry (nullopt: no file).
  std::string feature_text_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> feature_expiry_ ABSL_GUARDED_BY(mu_);
  std::string published_health_ ABSL_GUARDED_BY(mu_);  // for the log
  // The verdict file's content without its written time, and when written.
  std::string verdict_content_ ABSL_GUARDED_BY(mu_);
  absl::Time verdict_written_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::agent
