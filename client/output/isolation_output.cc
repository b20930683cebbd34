#include "client/output/isolation_output.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/output/sweep_json.h"

namespace fabricpulse::client {
namespace {

std::string RoundText(const v1::IsolationRound& r) {
  return absl::StrCat(
      r.role(), " ", absl::StrJoin(r.nodes(), ","), ": ",
      r.ok() ? absl::StrFormat("%.3g GB/s", r.busbw_bytes_per_second() / 1e9)
             : absl::StrCat("failed (", r.error(), ")"));
}

std::string Named(const v1::SweepIsolation& i) {
  const std::string& v = i.verdict();
  if (v == "node" || v == "nodes") {
    return absl::StrCat(v, " ", absl::StrJoin(i.culprits(), ", "));
  }
  if (v == "link") {
    std::vector<std::string> links;
    for (int k = 0; k + 1 < i.culprits_size(); k += 2) {
      links.push_back(absl::StrCat(i.culprits(k), "<->", i.culprits(k + 1)));
    }
    return absl::StrCat("link ", absl::StrJoin(links, ", "));
  }
  if (v == "none") return "nothing stands out";
  if (v == "gave_up") return "gave up";
  return v;  // running, skipped, interrupted
}

}  // namespace

std::string IsolationLines(const v1::SweepIsolation& isolation) {
  std::vector<std::string> rounds;
  for (const v1::IsolationRound& r : isolation.rounds()) {
    rounds.push_back(RoundText(r));
  }
  std::string out = absl::StrCat("# isolation: ", Named(isolation));
  if (!rounds.empty()) {
    absl::StrAppend(&out, " (", rounds.size(),
                    " measurements: ", absl::StrJoin(rounds, "; "), ")");
  }
  absl::StrAppend(&out, "; after a ", isolation.cause(), " of ", isolation.op(),
                  " ", isolation.bytes(), " B\n");
  if (!isolation.summary().empty()) {
    absl::StrAppend(&out, "# isolation summary: ", isolation.summary(), "\n");
  }
  return out;
}

void WriteIsolation(JsonWriter& json, const v1::SweepIsolation& isolation) {
  json.BeginObject();
  json.Key("cause").String(isolation.cause());
  json.Key("op").String(isolation.op());
  json.Key("bytes").Unsigned(isolation.bytes());
  json.Key("verdict").String(isolation.verdict());
  json.Key("culprits")
      .StringArray({isolation.culprits().begin(), isolation.culprits().end()});
  json.Key("summary").StringOrNull(isolation.summary());
  json.Key("started_at")
      .StringOrNull(Rfc3339(isolation.started_unix_seconds()));
  json.Key("finished_at")
      .StringOrNull(Rfc3339(isolation.finished_unix_seconds()));
  json.Key("rounds").BeginArray();
  for (const v1::IsolationRound& r : isolation.rounds()) {
    json.BeginObject();
    json.Key("role").String(r.role());
    json.Key("nodes").StringArray({r.nodes().begin(), r.nodes().end()});
    json.Key("ok").Bool(r.ok());
    json.Key("busbw_bytes_per_second")
        .Number(r.has_busbw_bytes_per_second()
                    ? std::optional<double>(r.busbw_bytes_per_second())
                    : std::nullopt);
    json.Key("error").StringOrNull(r.error());
    json.Key("sweep_id").StringOrNull(r.sweep_id());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

}  // namespace fabricpulse::client
