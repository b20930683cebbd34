#include "daemon/core/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::core {
namespace {

// Records per rank shown in its evidence line; the hang is in the last few.
constexpr size_t kEvidenceRecords = 3;

bool Known(absl::Time t) {
  return t != absl::InfinitePast() && t != absl::InfiniteFuture();
}

absl::Duration Since(absl::Time now, absl::Time t) {
  if (!Known(t) || !Known(now)) return absl::ZeroDuration();
  // Records come from other nodes' clocks; a little skew must not produce
  // a negative wait.
  return std::max(now - t, absl::ZeroDuration());
}

// When the rank joined the op.
absl::Time JoinTime(const FlightRecord& r) {
  return Known(r.enqueued) ? r.enqueued : r.started;
}

// When the op's work began on the rank.
absl::Time StartTime(const FlightRecord& r) {
  return Known(r.started) ? r.started : r.enqueued;
}

// When the record reached its current state.
absl::Time StateTime(const FlightRecord& r) {
  switch (r.state) {
    case OpState::kEnqueued:
      return r.enqueued;
    case OpState::kStarted:
      return StartTime(r);
    case OpState::kCompleted:
    case OpState::kFailed:
      break;
  }
  return Known(r.completed) ? r.completed : StartTime(r);
}

// Human-readable lines are one line each, whatever a node name or an error
// message contains.
std::string OneLine(absl::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

std::string HumanBytes(uint64_t bytes) { return HumanByteSize(bytes); }

std::string Seconds(absl::Duration d) {
  return absl::StrFormat("%.1fs", absl::ToDoubleSeconds(d));
}

// "all_reduce #42 (1 MiB)", or "op #42" when the op is unknown.
std::string OpRef(absl::string_view op, uint64_t seq, uint64_t bytes) {
  if (op.empty()) return absl::StrCat("op #", seq);
  return absl::StrCat(OneLine(op), " #", seq, " (", HumanBytes(bytes), ")");
}

std::string OpRef(const FlightRecord& r) { return OpRef(r.op, r.seq, r.bytes); }

std::string Location(int rank, absl::string_view node, int gpu) {
  std::vector<std::string> parts;
  if (!node.empty()) parts.push_back(absl::StrCat("node ", OneLine(node)));
  if (gpu >= 0) parts.push_back(absl::StrCat("GPU ", gpu));
  std::string out = absl::StrCat("rank ", rank);
  if (!parts.empty())
    absl::StrAppend(&out, " (", absl::StrJoin(parts, ", "), ")");
  return out;
}

// " 12.0s ago", or nothing when the time is unknown.
std::string Ago(absl::Time now, absl::Time t) {
  if (!Known(t) || !Known(now)) return "";
  return absl::StrCat(" ", Seconds(Since(now, t)), " ago");
}

// "#7 all_reduce 1 MiB float started 12.0s ago".
std::string DescribeRecord(const FlightRecord& r, absl::Time now) {
  std::string out =
      absl::StrCat("#", r.seq, " ", r.op.empty() ? "op" : OneLine(r.op), " ",
                   HumanBytes(r.bytes));
  if (!r.dtype.empty()) absl::StrAppend(&out, " ", OneLine(r.dtype));
  absl::StrAppend(&out, " ", OpStateName(r.state), Ago(now, StateTime(r)));
  if (r.state == OpState::kFailed && !r.error.empty()) {
    absl::StrAppend(&out, ": ", OneLine(r.error));
  }
  return out;
}

// One rank's records by seq (a repeated seq keeps the later record).
struct RankView {
  const RankReport* report = nullptr;
  std::map<uint64_t, const FlightRecord*> by_seq;
  const FlightRecord* failed = nullptr;  // the highest-seq failed record

  const FlightRecord* last() const {
    return by_seq.empty() ? nullptr : by_seq.rbegin()->second;
  }
  uint64_t max_seq() const {
    return by_seq.empty() ? 0 : by_seq.rbegin()->first;
  }
  const FlightRecord* Find(uint64_t seq) const {
    auto it = by_seq.find(seq);
    return it == by_seq.end() ? nullptr : it->second;
  }
};

RankView MakeView(const RankReport& report) {
  RankView view;
  view.report = &report;
  for (const FlightRecord& r : report.records) view.by_seq[r.seq] = &r;
  for (const auto& [seq, r] : view.by_seq) {
    if (r->state == OpState::kFailed) view.failed = r;
  }
  return view;
}

std::string EvidenceLine(const RankView& view, absl::Time now) {
  const RankReport& r = *view.report;
  std::string out = absl::StrCat(Location(r.rank, r.node, r.gpu), ": ");
  if (r.reachable) {
    absl::StrAppend(&out, "reachable");
  } else if (r.unreachable_reason.empty()) {
    absl::StrAppend(&out, "unreachable");
  } else {
    absl::StrAppend(&out, "unreachable (", OneLine(r.unreachable_reason), ")");
  }
  if (view.by_seq.empty()) {
    absl::StrAppend(&out, "; no records");
    return out;
  }
  const size_t shown = std::min(kEvidenceRecords, view.by_seq.size());
  if (shown < view.by_seq.size()) {
    absl::StrAppend(&out, "; last ", shown, " of ", view.by_seq.size(),
                    " records: ");
  } else {
    absl::StrAppend(&out, "; records: ");
  }
  std::vector<std::string> parts;
  for (auto it = std::prev(view.by_seq.end(), static_cast<long>(shown));
       it != view.by_seq.end(); ++it) {
    parts.push_back(DescribeRecord(*it->second, now));
  }
  absl::StrAppend(&out, absl::StrJoin(parts, ", "));
  return out;
}

Verdict VerdictFor(const RankReport& r, VerdictKind kind) {
  Verdict v;
  v.kind = kind;
  v.rank = r.rank;
  v.node = r.node;
  v.gpu = r.gpu;
  return v;
}

void SetOp(const FlightRecord& record, Verdict* v) {
  v->seq = record.seq;
  v->op = record.op;
  v->bytes = record.bytes;
}

Verdict UnreachableVerdict(const RankView& view, absl::Time now) {
  const RankReport& r = *view.report;
  Verdict v = VerdictFor(r, VerdictKind::kUnreachable);
  v.explanation = "unreachable";
  if (!r.unreachable_reason.empty()) {
    absl::StrAppend(&v.explanation, " (", OneLine(r.unreachable_reason), ")");
  }
  const FlightRecord* last = view.last();
  if (last == nullptr) {
    absl::StrAppend(&v.explanation, ", no operation recorded");
    return v;
  }
  SetOp(*last, &v);
  v.stuck_for = Since(now, StateTime(*last));
  absl::StrAppend(&v.explanation, ", last known op ", OpRef(*last), " ",
                  OpStateName(last->state), Ago(now, StateTime(*last)));
  return v;
}

Verdict FailedVerdict(const RankView& view, absl::Time now) {
  const FlightRecord& f = *view.failed;
  Verdict v = VerdictFor(*view.report, VerdictKind::kFailed);
  SetOp(f, &v);
  v.stuck_for = Since(now, StateTime(f));
  v.explanation = absl::StrCat("failed in ", OpRef(f));
  if (!f.error.empty()) absl::StrAppend(&v.explanation, ": ", OneLine(f.error));
  return v;
}

// Rules 3 and 4 of Diagnose(): `view` is an active rank whose highest seq is
// below `n`, the op the others are in.
Verdict BehindVerdict(const RankView& view,
                      const std::vector<const RankView*>& active, uint64_t n,
                      absl::Time now) {
  const FlightRecord* info = nullptr;  // the lowest rank's record of op n
  absl::Time earliest = absl::InfiniteFuture();
  for (const RankView* a : active) {
    const FlightRecord* r = a->Find(n);
    if (r == nullptr) continue;
    if (info == nullptr) info = r;
    if (Known(JoinTime(*r))) earliest = std::min(earliest, JoinTime(*r));
  }
  const FlightRecord* last = view.last();
  const bool finished = last != nullptr && last->state == OpState::kCompleted;
  Verdict v = VerdictFor(*view.report, finished ? VerdictKind::kFinishedNotNext
                                                : VerdictKind::kNeverJoined);
  // `info` exists: n is the highest seq some active rank recorded.
  SetOp(*info, &v);
  v.stuck_for = Since(now, earliest);
  const std::string waiting =
      Known(earliest)
          ? absl::StrCat(", others waiting for ", Seconds(v.stuck_for))
          : ", others waiting in it";
  if (finished) {
    v.explanation =
        absl::StrCat("finished ", OpRef(*last), Ago(now, StateTime(*last)),
                     " but never joined ", OpRef(*info), waiting,
                     " (it stopped issuing work)");
    return v;
  }
  v.explanation = absl::StrCat("never joined ", OpRef(*info), waiting);
  if (last == nullptr) {
    absl::StrAppend(&v.explanation, "; it recorded no operation");
  } else if (last->state == OpState::kEnqueued) {
    absl::StrAppend(&v.explanation, "; its ", OpRef(*last), " was enqueued",
                    Ago(now, last->enqueued), " and never started");
  } else {
    absl::StrAppend(&v.explanation, "; its ", OpRef(*last), " started",
                    Ago(now, StartTime(*last)), " and never finished");
  }
  return v;
}

// Rule 5 of Diagnose(): every active rank is at op `n`.
void JoinedNotFinished(const std::vector<const RankView*>& active, uint64_t n,
                       absl::Time now, std::vector<Verdict>* culprits) {
  std::vector<const RankView*> unfinished;
  size_t finished = 0;
  for (const RankView* a : active) {
    if (a->last()->state == OpState::kCompleted) {
      ++finished;
    } else {
      unfinished.push_back(a);
    }
  }
  const bool low_confidence = finished == 0 && unfinished.size() > 1;
  for (const RankView* u : unfinished) {
    const FlightRecord& r = *u->last();
    Verdict v = VerdictFor(*u->report, VerdictKind::kJoinedNotFinished);
    SetOp(r, &v);
    v.stuck_for = Since(now, StartTime(r));
    v.low_confidence = low_confidence;
    const std::string stuck =
        Known(StartTime(r)) ? absl::StrCat(", stuck for ", Seconds(v.stuck_for))
                            : "";
    if (finished > 0) {
      v.explanation = absl::StrCat(
          "joined ", OpRef(r), " but did not finish it while ", finished,
          finished == 1 ? " other rank" : " other ranks", " did", stuck);
    } else if (low_confidence) {
      v.explanation = absl::StrCat(
          "joined ", OpRef(r), " and did not finish it", stuck,
          "; all ranks joined op #", n,
          " and none finished: a fabric/link problem or a rank stuck inside "
          "the library");
    } else {
      v.explanation =
          absl::StrCat("joined ", OpRef(r), " and did not finish it", stuck);
    }
    culprits->push_back(std::move(v));
  }
}

int Priority(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kUnreachable:
      return 0;
    case VerdictKind::kFailed:
      return 1;
    case VerdictKind::kNeverJoined:
      return 2;
    case VerdictKind::kFinishedNotNext:
      return 3;
    case VerdictKind::kJoinedNotFinished:
      return 4;
  }
  return 5;
}

void AppendJsonString(absl::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

std::string JsonSeconds(absl::Duration d) {
  const double s = absl::ToDoubleSeconds(d);
  if (!std::isfinite(s)) return "null";
  return absl::StrFormat("%.3f", s);
}

}  // namespace

absl::string_view OpStateName(OpState state) {
  switch (state) {
    case OpState::kEnqueued:
      return "enqueued";
    case OpState::kStarted:
      return "started";
    case OpState::kCompleted:
      return "completed";
    case OpState::kFailed:
      return "failed";
  }
  return "unknown";
}

absl::string_view VerdictKindName(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kUnreachable:
      return "unreachable";
    case VerdictKind::kNeverJoined:
      return "never_joined";
    case VerdictKind::kFinishedNotNext:
      return "finished_not_next";
    case VerdictKind::kJoinedNotFinished:
      return "joined_not_finished";
    case VerdictKind::kFailed:
      return "failed";
  }
  return "unknown";
}

bool ParseVerdictKind(absl::string_view name, VerdictKind* kind) {
  for (VerdictKind k :
       {VerdictKind::kUnreachable, VerdictKind::kNeverJoined,
        VerdictKind::kFinishedNotNext, VerdictKind::kJoinedNotFinished,
        VerdictKind::kFailed}) {
    if (name == VerdictKindName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

std::string Verdict::Line() const {
  return absl::StrCat(Location(rank, node, gpu), ": ", explanation);
}

std::string Diagnosis::Summary() const {
  if (culprits.empty()) return "no culprit found";
  const Verdict& first = culprits.front();
  if (first.low_confidence) {
    absl::Duration longest = absl::ZeroDuration();
    for (const Verdict& v : culprits) longest = std::max(longest, v.stuck_for);
    return absl::StrCat(
        "no single culprit: all ", culprits.size(), " ranks joined ",
        OpRef(first.op, first.seq, first.bytes),
        " and none finished, stuck for ", Seconds(longest),
        ": a fabric/link problem or a rank stuck inside the library");
  }
  std::string out = absl::StrCat("culprit: ", first.Line());
  if (culprits.size() > 1) {
    std::vector<int> others;
    for (size_t i = 1; i < culprits.size(); ++i) {
      others.push_back(culprits[i].rank);
    }
    absl::StrAppend(&out, "; also ", others.size() == 1 ? "rank " : "ranks ",
                    absl::StrJoin(others, ", "));
  }
  return out;
}

std::string Diagnosis::ToJson() const {
  std::string out = "{\"summary\":";
  AppendJsonString(Summary(), &out);
  out.append(",\"culprits\":[");
  for (size_t i = 0; i < culprits.size(); ++i) {
    const Verdict& v = culprits[i];
    if (i > 0) out.push_back(',');
    out.append("{\"kind\":");
    AppendJsonString(VerdictKindName(v.kind), &out);
    absl::StrAppend(&out, ",\"rank\":", v.rank, ",\"node\":");
    AppendJsonString(v.node, &out);
    absl::StrAppend(&out, ",\"gpu\":", v.gpu, ",\"seq\":", v.seq, ",\"op\":");
    AppendJsonString(v.op, &out);
    absl::StrAppend(&out, ",\"bytes\":", v.bytes,
                    ",\"stuck_for_seconds\":", JsonSeconds(v.stuck_for),
                    ",\"low_confidence\":", v.low_confidence ? "true" : "false",
                    ",\"explanation\":");
    AppendJsonString(v.explanation, &out);
    out.push_back('}');
  }
  out.append("],\"evidence\":[");
  for (size_t i = 0; i < evidence.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(evidence[i], &out);
  }
  out.append("]}");
  return out;
}

Diagnosis Diagnose(const std::vector<RankReport>& ranks, absl::Time now) {
  std::vector<RankView> views;
  views.reserve(ranks.size());
  for (const RankReport& r : ranks) views.push_back(MakeView(r));
  std::stable_sort(views.begin(), views.end(),
                   [](const RankView& a, const RankView& b) {
                     return a.report->rank < b.report->rank;
                   });

  Diagnosis d;
  for (const RankView& v : views) d.evidence.push_back(EvidenceLine(v, now));

  std::vector<const RankView*> active;
  for (const RankView& v : views) {
    if (!v.report->reachable) {
      d.culprits.push_back(UnreachableVerdict(v, now));
    } else if (v.failed != nullptr) {
      d.culprits.push_back(FailedVerdict(v, now));
    } else {
      active.push_back(&v);
    }
  }
  uint64_t n = 0;
  for (const RankView* a : active) n = std::max(n, a->max_seq());
  for (const RankView* a : active) {
    if (a->max_seq() < n)
      d.culprits.push_back(BehindVerdict(*a, active, n, now));
  }
  if (d.culprits.empty() && n > 0)
    JoinedNotFinished(active, n, now, &d.culprits);

  std::stable_sort(d.culprits.begin(), d.culprits.end(),
                   [](const Verdict& a, const Verdict& b) {
                     if (Priority(a.kind) != Priority(b.kind)) {
                       return Priority(a.kind) < Priority(b.kind);
                     }
                     return a.rank < b.rank;
                   });
  return d;
}

}  // namespace fabricpulse::core
