#include "daemon/coordinator/coordinator_server.h"

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"
#include "daemon/common/grpc_server.h"
#include "daemon/common/port_file.h"
#include "daemon/common/state_dir_lock.h"
#include "daemon/coordinator/metrics_restore.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/limits.h"
#include "daemon/core/log.h"
#include "daemon/core/timeout_budget.h"
#include "daemon/security/authorizer.h"

namespace fabricpulse::coordinator {
absl::StatusOr<std::unique_ptr<CoordinatorServer>> CoordinatorServer::Start(
    const CoordinatorDaemonConfig& config) {
  absl::Status valid = config.Validate();
  if (!valid.ok()) return valid;
  auto listen = common::ParseHostPort(config.listen, "--listen");
  if (!listen.ok()) return listen.status();
  std::error_code ec;
  std::filesystem::create_directories(config.state_dir, ec);
  if (ec || !std::filesystem::is_directory(config.state_dir)) {
    return absl::InternalError(absl::StrCat(
        "--state-dir: cannot create '", config.state_dir, "': ", ec.message()));
  }
  // One coordinator per state directory, held until the process ends.
  auto state_lock = common::StateDirLock::Acquire(config.state_dir,
                                                  "fabricpulse-coordinator");
  if (!state_lock.ok()) return state_lock.status();
  auto credentials = security::Credentials::Create(config.tls);
  if (!credentials.ok()) return credentials.status();
  (*credentials)->WarnIfInsecure();
  absl::Status identity_ok = (*credentials)
                                 ->RequireSelf(security::Role::kCoordinator, "",
                                               "the coordinator's certificate");
  if (!identity_ok.ok()) return identity_ok;
  std::shared_ptr<security::PolicySource> policy;
  if (config.authz_policy.empty()) {
    policy = security::PolicySource::BuiltIn(security::Service::kCoordinator,
                                             config.tls.trust_domain);
  } else {
    auto loaded = security::PolicySource::FromFile(config.authz_policy,
                                                   config.tls.refresh);
    if (!loaded.ok()) return loaded.status();
    policy = *std::move(loaded);
  }
  core::CoordinatorConfig plans;
  if (!config.config.empty()) {
    // A bad config stops the coordinator here, naming the line and field.
    auto loaded = core::LoadCoordinatorConfigFile(config.config);
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--config ", config.config, ": ", loaded.status().message()));
    }
    plans = std::move(*loaded);
  }
  std::unique_ptr<CoordinatorServer> s(new CoordinatorServer);
  s->state_lock_ = std::move(*state_lock);
  s->credentials_ = *std::move(credentials);
  s->policy_ = std::move(policy);
  s->agent_clients_ = std::make_unique<GrpcAgentClients>(s->credentials_);
  auto history = HistoryStore::Open(config.state_dir + "/history.db");
  if (!history.ok()) {
    return absl::InternalError(
        absl::StrCat("--state-dir: ", history.status().message()));
  }
  s->history_ = std::move(*history);
  // Sweeps that were running when the last coordinator stopped will never
  // finish: they are marked interrupted, never lost.
  auto interrupted = s->history_->MarkInterrupted(absl::Now());
  if (interrupted.ok() && *interrupted > 0) {
    FP_LOG_WARNING(absl::StrCat(*interrupted,
                                " sweep(s) from before the restart marked "
                                "interrupted"));
  }
  s->history_->MarkIsolationsInterrupted(absl::Now()).IgnoreError();
  s->history_->MarkCampaignsInterrupted(absl::Now()).IgnoreError();
  auto metrics = common::MetricsServer::Start(
      config.metrics_listen, "coordinator", config.web_config_file);
  if (!metrics.ok()) return metrics.status();
  s->metrics_ = std::move(*metrics);
  s->coordinator_metrics_ =
      std::make_unique<CoordinatorMetrics>(s->metrics_->registry());
  // Each configured plan's series and last success survive a restart.
  std::set<std::string> configured_plans;
  for (const auto& [name, plan] : plans.plans) configured_plans.insert(name);
  RestorePlanSeries(*s->history_, *s->coordinator_metrics_, configured_plans);
  for (const auto& [name, plan] : plans.plans) {
    s->coordinator_metrics_->AddPlan(name, plan.isolate_on.any());
  }
  for (const core::ScheduleConfig& schedule : plans.schedules) {
    s->coordinator_metrics_->AddSchedule(schedule.name);
  }
  const std::vector<core::ScheduleConfig> schedules = plans.schedules;
  s->retention_ = std::make_unique<HistoryRetention>(
      s->history_.get(),
      RetentionPolicy{plans.history_max_age, plans.history_max_bytes});
  s->config_ = plans;
  s->orchestrator_ = std::make_unique<SweepOrchestrator>(
      std::move(plans), s->history_.get(), s->coordinator_metrics_.get(),
      s->agent_clients_.get(), core::RealClock::Get());
  // A plan's isolate_on: isolations run their sweeps through the same path
  // as the CLI, in the background.
  s->isolator_ = std::make_unique<AutoIsolator>(
      &s->config_,
      [orchestrator = s->orchestrator_.get()](const v1::SweepRequest& request,
                                              const std::string& trigger,
                                              const SweepSink& sink) {
        return orchestrator->Execute(request, trigger, sink);
      },
      s->history_.get(), s->coordinator_metrics_.get(), core::RealClock::Get());
  s->orchestrator_->SetSweepEndHook(
      [isolator = s->isolator_.get()](const SweepEnd& end) {
        isolator->OnSweepEnd(end);
      });
  // Cron schedules run their plans through the same path as the CLI, held
  // back while a member's GPU is busy (unless allowed); they start firing
  // once the server listens.
  // Campaign plans: group sweeps through the same path, in the background.
  auto runner = CampaignRunner::Create(
      &s->config_,
      [orchestrator = s->orchestrator_.get()](const v1::SweepRequest& request,
                                              const std::string& trigger,
                                              const SweepSink& sink) {
        return orchestrator->Execute(request, trigger, sink);
      },
      [orchestrator =
           s->orchestrator_.get()](const std::vector<std::string>& nodes) {
        return orchestrator->membership().List(nodes);
      },
      s->history_.get(), core::RealClock::Get(),
      &s->coordinator_metrics_->campaigns());
  if (!runner.ok()) {
    return absl::InternalError(
        absl::StrCat("--state-dir: ", runner.status().message()));
  }
  s->campaigns_ = *std::move(runner);
  s->schedule_target_ = std::make_unique<OrchestratorScheduleTarget>(
      s->orchestrator_.get(), s->coordinator_metrics_.get(),
      s->campaigns_.get());
  s->scheduler_ =
      std::make_unique<Scheduler>(schedules, s->schedule_target_.get());
  s->service_ = std::make_unique<CoordinatorServiceImpl>(
      s->orchestrator_.get(), &s->orchestrator_->rendezvous(),
      s->history_.get(), &s->config_, s->scheduler_.get(), s->campaigns_.get());

  auto health = common::HealthEndpoint::Start(
      config.health_listen, {v1::CoordinatorService::service_full_name()});
  if (!health.ok()) return health.status();
  s->health_ = std::move(*health);
  auto listening = common::StartGrpcServer(
      config.listen, s->service_.get(),
      s->credentials_->Server(std::make_shared<security::Authorizer>(
          config.tls.trust_domain, s->policy_)),
      core::kCoordinatorMaxRequestBytes, common::kCoordinatorCallLimits,
      s->health_->service());
  if (!listening.ok()) return listening.status();
  s->server_ = std::move(listening->server);
  const int port = listening->port;
  s->grpc_address_ = common::JoinHostPort(listen->host, port);
  // With :0 the port is known only once bound; no agent can have called
  // before this, since nobody knew the port.
  s->orchestrator_->SetAdvertisedAddress(
      common::JoinHostPort(common::AdvertisedHost(listen->host), port));
  // Logged before the port file is written (a test waits for this line).
  FP_LOG_INFO(
      absl::StrCat("listening on ", s->grpc_address_, ", metrics on ",
                   s->metrics_->address(),
                   s->health_->address().empty()
                       ? ""
                       : absl::StrCat(", health on ", s->health_->address())));
  if (!config.port_file.empty()) {
    absl::Status written = common::WritePortFile(
        config.port_file,
        {s->grpc_address_, s->metrics_->address(), s->health_->address()});
    if (!written.ok()) return written;
  }
  s->scheduler_->Start();
  // Housekeeping: lost agents are noticed lazily by membership; refresh the
  // agents gauge every second so a lost agent shows without a client. The
  // history's retention runs after each finished sweep and on a timer.
  SweepOrchestrator* orchestrator = s->orchestrator_.get();
  HistoryRetention* retention = s->retention_.get();
  CampaignRunner* campaigns = s->campaigns_.get();
  absl::Notification* stop = &s->stop_housekeeping_;
  s->housekeeping_ = std::thread([orchestrator, retention, campaigns, stop] {
    // Verdicts turn untested as time passes, and links below peers come
    // and go with heartbeats: their series every 30 s.
    int ticks = 0;
    do {
      retention->Tick();
      orchestrator->UpdateAgentMetrics();
      if (ticks++ % 30 == 0) {
        campaigns->PublishMetrics();
        (void)orchestrator->AgentsWithLinkHealth();  // its series
      }
    } while (!stop->WaitForNotificationWithTimeout(absl::Seconds(1)));
  });
  s->health_->SetServing();
  return s;
}

void CoordinatorServer::Shutdown(absl::Duration deadline) {
  {
    absl::MutexLock lock(&shutdown_mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  // Probes see NOT_SERVING from the first moment of the shutdown.
  if (health_) health_->NotServing();
  if (housekeeping_.joinable()) {
    stop_housekeeping_.Notify();
    housekeeping_.join();
  }
  if (scheduler_) scheduler_->RequestStop();
  // Before the abort: an isolation's aborted sweep is then no evidence.
  if (isolator_) isolator_->RequestStop();
  if (campaigns_) campaigns_->RequestStop();
  if (orchestrator_) {
    orchestrator_->AbortAll();
    // A KvGet holds no thread, but an open call would hold the server's
    // shutdown until its wait ends: every wait ends now.
    orchestrator_->rendezvous().Shutdown();
  }
  if (scheduler_) scheduler_->Stop();
  if (isolator_) isolator_->Stop();
  if (campaigns_) campaigns_->Stop();
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
  // An aborted sweep ends once its agents answered the abort and their
  // streams drained, each bounded by the budget.
  const absl::Duration sweep_end =
      core::kTimeouts.AgentRpc() + core::kTimeouts.Drain();
  if (service_ && !service_->WaitForSweepThreads(sweep_end)) {
    FP_LOG_ERROR(absl::StrCat("a sweep's thread did not end within ",
                              absl::FormatDuration(sweep_end),
                              " of the abort"));
  }
  if (health_) health_->Stop(absl::Seconds(1));
  FP_LOG_DEBUG("server stopped");
}

CoordinatorServer::~CoordinatorServer() { Shutdown(absl::Seconds(5)); }

}  // namespace fabricpulse::coordinator
