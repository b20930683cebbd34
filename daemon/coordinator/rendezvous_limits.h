// The bounds on the coordinator's rendezvous key-value store: what one
// sweep's scope may hold, derived from its rank count, and what all scopes
// together may hold. Each bound, when hit, is refused with
// RESOURCE_EXHAUSTED and a message that names it (rendezvous_store.h).
//
// What the rendezvous really writes (measured by
// tests/unit/coordinator/rendezvous_footprint_test.cc through this store,
// with Debian's Gloo 0.0~git20220518):
//   Gloo, n ranks: two keys per rank under "<comm_id>/<sweep_id>/": "<rank>"
//     holds the rank's address for each of its n-1 peers, 136 bytes each
//     (a sockaddr_storage and a sequence number), and "rank_<rank>" 2
//     bytes. 2 ranks: 4 keys, largest value 136 B, 702 B in all (as the
//     store counts: key + value + 64 per key); 4 ranks: 8 keys, 408 B,
//     2,492 B; 16 ranks: 32 keys, 2,040 B, 36,092 B. That is about
//     136 n^2 bytes: 1,024 ranks would write about 142 MB.
//   NCCL: two keys per communicator ("nccl-unique-id", "nccl-data-id"),
//     written by rank 0, 128 bytes each (sizeof(ncclUniqueId)), 488 B in
//     all at any rank count; every other rank waits for each.
//   Waits: at most one per rank at a time (Gloo reads its peers' keys one
//     after another; NCCL's n-1 ranks wait for rank 0's id).
// The budgets below give at least twice that at every rank count: values
// of 2 KiB + 272 B per rank, 16 + 4 keys per rank, n values' worth of bytes
// plus 64 KiB, 16 + 2 waits per rank. The total bounds keep all sweeps
// together at a quarter of the chart's 1 GiB memory limit; a Gloo sweep of
// more than about 1,380 ranks (136 n^2 bytes > 256 MiB) cannot rendezvous
// through this store (NCCL sweeps of any size can).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabricpulse::coordinator {

// What one sweep's scope may hold.
struct RendezvousScopeBudget {
  size_t max_value_bytes = 0;  // per key
  size_t max_keys = 0;
  // Key and value bytes plus kRendezvousEntryOverhead per key.
  size_t max_bytes = 0;
  size_t max_waiters = 0;  // KvGet calls waiting at once
};

// Bytes charged per key on top of the key and value (the map entry).
inline constexpr size_t kRendezvousEntryOverhead = 64;

struct RendezvousLimits {
  // Length of any key, in bytes (ours are about 46).
  size_t max_key_bytes = 512;
  // A scope of n ranks may hold:
  //   values of  value_base_bytes + value_per_rank_bytes * n  bytes,
  //   keys_base + keys_per_rank * n  keys,
  //   n * (the value bound) + bytes_base  bytes,
  // and  waiters_base + waiters_per_rank * n  KvGet calls waiting at once.
  // 2 ranks: 2,592 B values, 24 keys, 70,720 B, 20 waits;
  // 16 ranks: 6,400 B values, 80 keys, 167,936 B, 48 waits.
  size_t value_base_bytes = 2048;
  size_t value_per_rank_bytes = 272;
  size_t keys_base = 16;
  size_t keys_per_rank = 4;
  size_t bytes_base = 64 * 1024;
  size_t waiters_base = 16;
  size_t waiters_per_rank = 2;
  // Over all open scopes together: bytes (as max_bytes counts them), and
  // KvGet calls waiting at once.
  size_t max_total_bytes = size_t{256} << 20;
  size_t max_total_waiters = 16384;

  // The budget of a scope for a sweep of `nranks` (>= 1) ranks.
  RendezvousScopeBudget ForRanks(int nranks) const {
    const auto n = static_cast<size_t>(nranks < 1 ? 1 : nranks);
    RendezvousScopeBudget b;
    b.max_value_bytes = value_base_bytes + value_per_rank_bytes * n;
    b.max_keys = keys_base + keys_per_rank * n;
    b.max_bytes = n * b.max_value_bytes + bytes_base;
    b.max_waiters = waiters_base + waiters_per_rank * n;
    return b;
  }
};

}  // namespace fabricpulse::coordinator
