#include "daemon/agent/verdict_publisher.h"

#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/common/atomic_file.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/log.h"
#include "daemon/core/nfd_feature_file.h"
#include "google/protobuf/util/json_util.h"

namespace fabricpulse::agent {

namespace {

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

absl::Status RequireWritableFolder(const std::string& flag,
                                   const std::string& folder) {
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", folder,
                     "' is not a folder this agent can write (it must exist "
                     "and be writable by the agent's user)"));
  }
  return absl::OkStatus();
}

absl::Time TimeOfUnixSeconds(double seconds) {
  return absl::UnixEpoch() + absl::Seconds(seconds);
}

double UnixSecondsOf(absl::Time t) {
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

}  // namespace

absl::StatusOr<std::unique_ptr<VerdictPublisher>> VerdictPublisher::Create(
    VerdictPublisherOptions options, core::Clock* clock) {
  if (!options.nfd_features_dir.empty()) {
    absl::Status ok =
        RequireWritableFolder("--nfd-features-dir", options.nfd_features_dir);
    if (!ok.ok()) return ok;
  }
  if (!options.verdict_file.empty()) {
    absl::Status ok =
        RequireWritableFolder("--verdict-file", FolderOf(options.verdict_file));
    if (!ok.ok()) return ok;
  }
  std::unique_ptr<VerdictPublisher> publisher(
      new VerdictPublisher(std::move(options), clock));
  if (!publisher->options_.nfd_features_dir.empty()) {
    // A file an earlier agent process left: kept until its expiry.
    absl::StatusOr<std::string> text = core::ReadBoundedFile(
        absl::StrCat(publisher->options_.nfd_features_dir, "/",
                     core::kNfdFeatureFileName),
        core::kNfdMaxFileBytes, "--nfd-features-dir file");
    if (text.status().code() != absl::StatusCode::kNotFound) {
      absl::MutexLock lock(&publisher->mu_);
      // Unreadable, or no expiry that parses: not a file to keep.
      publisher->feature_expiry_ = absl::InfinitePast();
      if (text.ok()) {
        publisher->feature_text_ = *text;
        publisher->feature_expiry_ =
            core::NfdFileExpiry(*text).value_or(absl::InfinitePast());
      }
    }
  }
  return publisher;
}

void VerdictPublisher::Stop() {
  absl::MutexLock lock(&mu_);
  if (stopped_) return;
  stopped_ = true;
  if (options_.verdict_file.empty()) return;
  absl::Status removed = common::RemoveFileIfPresent(options_.verdict_file);
  if (!removed.ok()) Report(removed);
}

void VerdictPublisher::Observe(const v1::HeartbeatResponse* answer) {
  absl::MutexLock lock(&mu_);
  if (stopped_) return;
  const absl::Time now = clock_->Now();
  if (answer != nullptr) {
    heard_ = true;
    answered_ = now;
    if (answer->has_node_verdict()) {
      verdict_ = answer->node_verdict();
    } else {
      verdict_.reset();
    }
  }
  if (!options_.nfd_features_dir.empty()) {
    PublishFeatureFile(now, answer != nullptr);
  }
  if (!options_.verdict_file.empty()) PublishVerdictFile(now);
}

void VerdictPublisher::PublishFeatureFile(absl::Time now, bool answered) {
  std::optional<core::NfdVerdictLabels> want;
  if (verdict_) {
    core::NfdVerdictLabels labels;
    labels.health = verdict_->verdict();
    labels.plan = verdict_->plan();
    if (verdict_->tested_unix_seconds() > 0) {
      labels.tested = TimeOfUnixSeconds(verdict_->tested_unix_seconds());
    }
    if (verdict_->expires_unix_seconds() > 0) {
      labels.expires = TimeOfUnixSeconds(verdict_->expires_unix_seconds());
      untested_until_ = absl::InfinitePast();  // a later untested: new lease
    } else {
      if (answered && untested_until_ - now < kUntestedLease / 2) {
        untested_until_ = now + kUntestedLease;
      }
      labels.expires = untested_until_;
    }
    if (labels.expires > now) want = std::move(labels);
  } else if (!heard_ && feature_expiry_ && *feature_expiry_ > now) {
    return;  // an earlier process's file, still true: left as it is
  }
  const std::string path =
      absl::StrCat(options_.nfd_features_dir, "/", core::kNfdFeatureFileName);
  if (!want) {
    if (!feature_expiry_) return;  // nothing on disk
    absl::Status removed = common::RemoveFileIfPresent(path);
    if (!removed.ok()) return Report(removed);
    FP_LOG_INFO(absl::StrCat("removed the node feature file ", path));
    feature_text_.clear();
    feature_expiry_.reset();
    published_health_.clear();
    return;
  }
  const std::string text = core::NfdFeatureFileText(*want);
  if (text == feature_text_) return;
  absl::Status written = common::WriteFileAtomically(
      path,
      absl::StrCat(options_.nfd_features_dir, "/", core::kNfdFeatureTempName),
      text);
  if (!written.ok()) return Report(written);
  if (want->health != published_health_) {
    FP_LOG_INFO(absl::StrCat("node feature file ", path, ": ",
                             core::kNfdHealthLabel, "=", want->health));
    published_health_ = want->health;
  }
  feature_text_ = text;
  feature_expiry_ = want->expires;
  last_error_.clear();
}

void VerdictPublisher::PublishVerdictFile(absl::Time now) {
  v1::LocalVerdictFile file;
  file.set_node(options_.node);
  if (verdict_) *file.mutable_verdict() = *verdict_;
  if (answered_ != absl::InfinitePast()) {
    file.set_coordinator_answered_unix_seconds(UnixSecondsOf(answered_));
  }
  std::string content;
  (void)google::protobuf::util::MessageToJsonString(file, &content);
  if (content == verdict_content_ &&
      now - verdict_written_ < kVerdictFileRefresh) {
    return;
  }
  file.set_written_unix_seconds(UnixSecondsOf(now));
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(file, &json);
  json.push_back('\n');
  absl::Status written = common::WriteFileAtomically(
      options_.verdict_file, absl::StrCat(options_.verdict_file, ".tmp"), json);
  if (!written.ok()) return Report(written);
  verdict_content_ = std::move(content);
  verdict_written_ = now;
}

void VerdictPublisher::Report(const absl::Status& error) {
  if (std::string(error.message()) == last_error_) return;
  last_error_ = std::string(error.message());
  FP_LOG_WARNING(absl::StrCat("publishing the node's verdict: ", last_error_));
}

}  // namespace fabricpulse::agent
